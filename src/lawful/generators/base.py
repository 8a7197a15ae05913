"""The generator interface and registry.

A generator writes one video for one case and rollout. Built-ins: ``reference`` (the
law-correct render), ``counterfactual`` (its anti-physics twin), ``static`` (the first
frame repeated), ``folder:DIR`` (pre-made videos named ``<case_id>.mp4`` or
``<case_id>__<k>.mp4``) and ``command:TEMPLATE`` (any shell command). Adapters for
diffusers pipelines and HTTP APIs plug in the same way via :func:`register_generator`.
"""

from __future__ import annotations

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

    @abstractmethod
    def generate(self, case: Case, first_frame: Path | None, out: Path, rollout: int = 0) -> Path:
        """Write the video for ``case`` to ``out`` and return the path actually written."""


def register_generator(prefix: str):
    """Register a factory ``f(arg) -> Generator`` for names ``prefix`` or ``prefix:arg``."""

    def deco(factory):
        _GENERATORS[prefix] = factory
        return factory

    return deco


def generator_names() -> list[str]:
    _load()
    return sorted(_GENERATORS)


def get_generator(spec: str) -> Generator:
    """``'reference'``, ``'static'``, ``'folder:/path'``, ``'command:my_model --in {first_frame} --out {out}'``."""
    from lawful.suites.base import unknown

    _load()
    prefix, _, arg = spec.partition(":")
    if prefix not in _GENERATORS:
        raise KeyError(unknown(prefix, _GENERATORS, "model"))
    return _GENERATORS[prefix](arg)


def _load() -> None:
    import lawful.generators.builtin  # noqa: F401
    import lawful.generators.external  # noqa: F401  (registers folder and command)
