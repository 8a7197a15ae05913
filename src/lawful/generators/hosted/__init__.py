"""Video models behind HTTP APIs: ``veo:MODEL`` (Gemini API), ``replicate:OWNER/MODEL[:VERSION]``,
``fal:APP_ID`` and ``api:CONFIG.yaml`` (any submit / poll / download API). See docs/hosted-apis.md.

Importing this package registers the names only: httpx is imported when a job is actually run.
Base URLs: the spec's ``?base_url=`` option, else ``LAWFUL_<PROVIDER>_BASE_URL``, else the API's own.
"""

from __future__ import annotations

import os

from lawful.generators.base import register_generator


def _make(prefix: str, provider_cls, arg: str, defaults=None):
    from lawful.generators.hosted.base import Settings, parse_spec, require_key
    from lawful.generators.hosted.jobs import HostedGenerator

    defaults = defaults or Settings()
    if not defaults.base_url:
        defaults.base_url = os.environ.get(f"LAWFUL_{prefix.upper()}_BASE_URL") or provider_cls.DEFAULT_BASE
    model, settings, name = parse_spec(prefix, arg, defaults)
    require_key(name, settings.key_env or provider_cls.key_env)
    return HostedGenerator(name, provider_cls(model, settings))


@register_generator("veo")
def veo(arg: str = ""):
    """Veo through the Gemini API (key: GEMINI_API_KEY)."""
    from lawful.generators.hosted.base import Settings
    from lawful.generators.hosted.providers import Veo

    return _make("veo", Veo, arg, Settings(poll_s=10.0))


@register_generator("replicate")
def replicate(arg: str = ""):
    """A Replicate model (key: REPLICATE_API_TOKEN)."""
    from lawful.generators.hosted.providers import Replicate

    return _make("replicate", Replicate, arg)


@register_generator("fal")
def fal(arg: str = ""):
    """A fal app through its queue (key: FAL_KEY)."""
    from lawful.generators.hosted.providers import Fal

    return _make("fal", Fal, arg)


@register_generator("api")
def api(arg: str = ""):
    """Any submit / poll / download API described by a YAML file."""
    from lawful.generators.hosted.base import parse_spec, require_key
    from lawful.generators.hosted.jobs import HostedGenerator
    from lawful.generators.hosted.generic import GenericAPI, load_config, settings_from

    path = arg.partition("?")[0]
    if not path:
        raise KeyError("model 'api' needs a config file: api:my_provider.yaml (see docs/hosted-apis.md)")
    cfg = load_config(path)
    _, settings, name = parse_spec("api", arg, settings_from(cfg))
    provider = GenericAPI(path, settings, cfg)
    name = provider.label + name[len(f"api:{path}"):]  # the config's name plus any input options
    require_key(name, settings.key_env or provider.key_env)
    return HostedGenerator(name, provider)
