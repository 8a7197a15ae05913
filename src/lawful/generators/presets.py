"""Model presets: the generators the four papers evaluate, as data (``presets.json``), each a model name.

``--models wan2.2-i2v-a14b`` runs the preset's spec (a ``diffusers:`` checkpoint or a hosted API) at the
model's native frame rate and pixel count; ``wan2.2-i2v-a14b:steps=30&offload=model`` adds options to it.
Where the weights, the packages or the API key are missing, naming the preset fails at once with one line
saying which. A closed model has no adapter: its videos are scored from a folder (``NAME=folder:DIR``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from lawful.generators.base import Generator, register_generator
from lawful.generators.diffusion import RUNTIME
from lawful.generators.hosted.base import CONTROL

PAPERS = {"principia": "Principia", "wmle": "WMLE", "applepi": "Apple-π", "phyground": "PhyGround"}
# Options that change how a video is made or paid for, not what it shows: not part of the model's name.
_RUNTIME = set(RUNTIME) | set(CONTROL)


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    access: str  # diffusers | veo | replicate | fal | closed
    native: dict = field(default_factory=dict)  # width, height, fps, frames
    papers: dict = field(default_factory=dict)  # suite -> the setting that paper reports
    spec: str = ""  # how lawful reaches it (empty for closed models)
    env: str = ""  # API key variable (hosted)
    how: str = ""  # closed: how to get its videos

    @property
    def native_text(self) -> str:
        n = self.native
        return f"{n['width']}x{n['height']} @ {n['fps']:g} fps, {n['frames']} frames" if n else "?"


@lru_cache(maxsize=1)
def presets() -> dict[str, Preset]:
    data = json.loads((Path(__file__).with_name("presets.json")).read_text())
    return {p["name"]: Preset(**p) for p in data["presets"]}


def spec_with(preset: Preset, options: str) -> str:
    """The preset's spec with extra ``k=v&...`` options (later ones win over the preset's)."""
    if not options:
        return preset.spec
    return preset.spec + ("&" if "?" in preset.spec else "?") + options.lstrip("?")


def make(preset: Preset, options: str = "") -> Generator:
    """The preset's generator, named after the preset; KeyError (one line) saying what is missing here."""
    from lawful.generators.base import _GENERATORS, _load, get_generator

    _load()

    if preset.access == "closed":
        raise KeyError(f"{preset.name} is closed here ({preset.how}); score its videos with "
                       f"--models {preset.name}=folder:DIR")
    prefix = preset.spec.partition(":")[0]
    if prefix not in _GENERATORS:
        raise KeyError(f"{preset.name} needs the {prefix}: adapter, which this installation lacks")
    try:
        gen = get_generator(spec_with(preset, options))
    except KeyError as e:
        raise KeyError(f"{preset.name}: {e.args[0]}") from None
    keys = {kv.partition("=")[0] for kv in options.lstrip("?").split("&") if kv}
    tag = "+" + hashlib.sha256(options.encode()).hexdigest()[:8] if keys - _RUNTIME else ""
    gen.name = preset.name + tag
    return gen


def status(preset: Preset) -> tuple[bool, str]:
    """``(True, 'ready')`` or ``(False, what is missing)`` on this machine (nothing is loaded or sent)."""
    if preset.access == "closed":
        return False, f"closed: {preset.how}"
    try:
        make(preset)
    except KeyError as e:
        msg = str(e.args[0]).removeprefix(preset.name + ": ")
        key = re.search(r"environment variable (\w+)", msg)
        if key:
            return False, f"{key.group(1)} is not set"
        fetch = re.search(r"fetch them first: (.+)$", msg)
        if fetch:
            return False, f"weights not downloaded ({fetch.group(1)})"
        head, sep, rest = msg.partition(": ")
        return False, rest if sep and ":" in head and " " not in head else msg
    return True, "ready"


def _register() -> None:
    for p in presets().values():
        register_generator(p.name)(lambda arg="", _p=p: make(_p, arg))


_register()
