"""What every hosted video API shares: the model spec and its options, the case's fields, JSON
templates and paths. (The :class:`~lawful.generators.hosted.jobs.HostedGenerator` lives with its jobs.)

A spec is ``PREFIX:MODEL[?option=value&...]``. The options in :data:`CONTROL` tune the client (and
stay out of the model's name); any other option is an input field sent to the model, its value a
template (``num_frames={frames}``). No HTTP client is imported here.
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from lawful.case import Case
from lawful.generators.base import GenerationError

CONTROL = {"base_url": str, "concurrency": int, "poll_s": float, "timeout_s": float, "http_timeout_s": float,
           "retries": int, "usd_per_video": float, "usd_per_s": float, "key_env": str, "budget_usd": float}
FIELDS = ("prompt", "image_b64", "image_mime", "image_data_uri", "image_url", "duration", "duration_int", "fps",
          "fps_int", "frames", "width", "height", "seed", "aspect_ratio", "case_id")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class Settings:
    """How the client behaves for one model: concurrency cap, poll interval, time limits, retries, price."""

    base_url: str = ""
    concurrency: int = 4
    poll_s: float = 5.0
    timeout_s: float = 1800.0  # one job, from submission to a downloaded file
    http_timeout_s: float = 60.0  # one HTTP request
    retries: int = 5
    usd_per_video: float = 0.0
    usd_per_s: float = 0.0  # per second of requested video
    key_env: str = ""
    budget_usd: float | None = None  # this model's own cap on estimated dollars in the run folder
    inputs: dict[str, Any] = field(default_factory=dict)  # extra model inputs (templates)

    def cost(self, case: Case) -> float:
        """Estimated price of one video for ``case`` (what the budget counts)."""
        return self.usd_per_video + self.usd_per_s * case.duration


def parse_spec(prefix: str, arg: str, defaults: Settings) -> tuple[str, Settings, str]:
    """``(model, settings, name)`` from ``MODEL?opt=v&...``; ``name`` keeps only the options that change the video."""
    model, _, query = arg.partition("?")
    if not model:
        raise KeyError(f"model '{prefix}' needs a model: {prefix}:<model>")
    s = Settings(**{k: getattr(defaults, k) for k in CONTROL}, inputs=dict(defaults.inputs))
    extra = []
    for k, v in parse_qsl(query, keep_blank_values=True):
        if k in CONTROL:
            try:
                setattr(s, k, CONTROL[k](v))
            except ValueError:
                raise KeyError(f"{prefix}:{model}: option {k}={v!r} is not a {CONTROL[k].__name__}") from None
        else:
            check_template(v, f"{prefix}:{model} option {k}")
            s.inputs[k] = literal(v)
            extra.append(f"{k}={v}")
    if s.concurrency < 1:
        raise KeyError(f"{prefix}:{model}: concurrency must be at least 1")
    name = f"{prefix}:{model}" + ("?" + "&".join(sorted(extra)) if extra else "")
    return model, s, name


def literal(v: str) -> Any:
    """A query value as JSON would have it: ints, floats, true/false stay typed; the rest is text."""
    if v in ("true", "false"):
        return v == "true"
    for t in (int, float):
        try:
            return t(v)
        except ValueError:
            pass
    return v


def require_key(spec: str, env: str) -> None:
    """KeyError (the CLI's one-line error, raised before anything is submitted) when ``env`` is unset."""
    if not os.environ.get(env):
        raise KeyError(f"{spec} needs an API key in the environment variable {env}, which is not set "
                       f"(nothing was submitted)")


def case_fields(case: Case, first_frame: Path | None, seed: int, image_url: str = "") -> dict[str, Any]:
    """The values a request template may use (see docs/hosted-apis.md)."""
    b64, mime = "", ""
    if first_frame is not None and Path(first_frame).exists():
        data = Path(first_frame).read_bytes()
        b64 = base64.b64encode(data).decode()
        mime = "image/jpeg" if data[:3] == b"\xff\xd8\xff" else "image/png"
    return dict(prompt=case.prompt, image_b64=b64, image_mime=mime,
                image_data_uri=f"data:{mime};base64,{b64}" if b64 else "", image_url=image_url or "",
                duration=case.duration, duration_int=max(1, int(round(case.duration))), fps=case.fps,
                fps_int=max(1, int(round(case.fps))), frames=case.n_frames, width=case.width, height=case.height,
                seed=seed, aspect_ratio="16:9" if case.width >= case.height else "9:16", case_id=case.id)


def check_template(t: Any, where: str) -> None:
    """KeyError naming the first placeholder in ``t`` that is not a known field."""
    if isinstance(t, dict):
        for k, v in t.items():
            check_template(v, f"{where}.{k}")
    elif isinstance(t, list):
        for i, v in enumerate(t):
            check_template(v, f"{where}[{i}]")
    elif isinstance(t, str):
        for name in _PLACEHOLDER.findall(t):
            if name not in FIELDS and name != "job_id":
                raise KeyError(f"{where}: unknown placeholder {{{name}}} (known: {', '.join(FIELDS)}, job_id)")


def render(t: Any, values: dict[str, Any]) -> Any:
    """Fill a JSON template: a string that is exactly one ``{field}`` takes the field's value and type;
    placeholders inside longer strings are replaced by text. Dicts and lists are filled recursively."""
    if isinstance(t, dict):
        return {k: render(v, values) for k, v in t.items()}
    if isinstance(t, list):
        return [render(v, values) for v in t]
    if isinstance(t, str):
        whole = _PLACEHOLDER.fullmatch(t)
        if whole:
            return values[whole.group(1)]
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), t)
    return t


def json_path(data: Any, path: str) -> Any:
    """``a.b.0.c`` or ``a.b[0].c`` into parsed JSON; None where the path does not exist."""
    cur = data
    for part in path.replace("[", ".").replace("]", "").split("."):
        if part == "":
            continue
        if isinstance(cur, list) and part.lstrip("-").isdigit() and -len(cur) <= int(part) < len(cur):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


class HTTPStatusError(GenerationError):
    """The API answered with an error status that retrying cannot fix (``status``: the HTTP code)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


@dataclass
class Poll:
    """One status reading: ``state`` is ``running``, ``done`` (with ``url``) or ``failed`` (with ``error``)."""

    state: str
    url: str = ""
    error: str = ""


class Provider:
    """One HTTP API. Subclasses implement :meth:`submit`, :meth:`poll` and, where the API has it, :meth:`cancel`."""

    key_env = ""

    def __init__(self, model: str, settings: Settings):
        self.model, self.settings = model, settings

    @property
    def base(self) -> str:
        return self.settings.base_url.rstrip("/")

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}

    def download_auth(self, url: str) -> bool:
        """Whether the key goes with a download from ``url`` (only to the API's own host)."""
        from urllib.parse import urlsplit

        return urlsplit(url).netloc == urlsplit(self.base).netloc

    async def prepare(self, http, fields: dict[str, Any]) -> dict[str, Any]:
        """Extra work before submitting (an upload); returns the fields to submit with."""
        return fields

    async def submit(self, http, fields: dict[str, Any]) -> str:
        raise NotImplementedError

    async def poll(self, http, job_id: str) -> Poll:
        raise NotImplementedError

    async def cancel(self, http, job_id: str) -> None:
        """Ask the API to stop a job (best effort; default: the API has no cancel)."""
