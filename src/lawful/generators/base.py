"""The generator interface and registry.

A generator writes one video for one case and rollout. Built-ins: ``reference`` (the
law-correct render), ``counterfactual`` (its anti-physics twin), ``static`` (the first
frame repeated), ``folder:DIR`` (pre-made videos named ``<case_id>.mp4`` or
``<case_id>__<k>.mp4``) and ``command:TEMPLATE`` (any shell command). Adapters for
diffusers pipelines and HTTP APIs plug in the same way via :func:`register_generator`.
"""

from __future__ import annotations

import re

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Callable

from lawful.case import Case

_GENERATORS: dict[str, Callable[[str], "Generator"]] = {}


class GenerationError(RuntimeError):
    """A generator could not produce a video for a case (one line for the user)."""


class Generator(ABC):
    """Produces ``out`` (an MP4) for ``case``; ``first_frame`` is the case's PNG path."""

    name: str = ""
    deterministic: bool = False  # True: every rollout is the same video (render once)
    # What one generate() needs on a Ray cluster (--executor ray), e.g. {"GPU": 1}: such a generator runs in
    # actors that keep it loaded; empty: its videos are made in the CPU task that scores them.
    resources: dict[str, float] = {}

    @abstractmethod
    def generate(self, case: Case, first_frame: Path | None, out: Path, rollout: int = 0,
                 seed: int | None = None) -> Path:
        """Write the video for ``case`` to ``out`` and return the path actually written.

        ``rollout``: which rollout of the case (0, 1, ...); ``seed``: the sampling seed for it (default ``rollout``).
        """


def register_generator(prefix: str):
    """Register a factory ``f(arg) -> Generator`` for names ``prefix`` or ``prefix:arg``."""

    def deco(factory):
        _GENERATORS[prefix] = factory
        return factory

    return deco


def generator_names() -> list[str]:
    _load()
    return sorted(_GENERATORS)


_LABEL = re.compile(r"^([A-Za-z0-9_.-]+)=(.+)$")


def get_generator(spec: str) -> Generator:
    """``'reference'``, ``'static'``, ``'folder:/path'``, ``'command:my_model --in {first_frame} --out {out}'``.

    ``'NAME=SPEC'`` gives the model the name ``NAME`` in the store and the leaderboards.
    """
    from lawful.choices import unknown

    _load()
    label = _LABEL.match(spec)
    if label and label.group(2).partition(":")[0] in _GENERATORS:
        gen = get_generator(label.group(2))
        gen.name = label.group(1)
        return gen
    prefix, _, arg = spec.partition(":")
    if prefix not in _GENERATORS:
        raise KeyError(unknown(prefix, _GENERATORS, "model"))
    return _GENERATORS[prefix](arg)


def split_models(text: str) -> list[str]:
    """Split a comma-separated ``--models`` value; a comma inside a ``command:`` template (any piece that
    does not start a model spec) stays with the template."""
    _load()
    out: list[str] = []
    for piece in text.split(","):
        head = piece.strip()
        m = _LABEL.match(head)
        prefix = (m.group(2) if m else head).partition(":")[0]
        if out and out[-1].partition(":")[0].split("=")[-1] == "command" and prefix not in _GENERATORS:
            out[-1] += "," + piece
        elif head:
            out.append(head)
    return out


# Modules that register generators on import (none may import torch or an HTTP client at import time).
_MODULES = ("lawful.generators.builtin", "lawful.generators.external", "lawful.generators.diffusion",
            "lawful.generators.hosted", "lawful.generators.presets")


def _load() -> None:
    import importlib

    for name in _MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:  # a real missing dependency inside an existing module
                raise
