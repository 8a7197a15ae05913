"""Where studio scene builders register: ``SCENES[(suite, task)] = build(index, seed) -> StyledCase``."""

from __future__ import annotations

from collections.abc import Callable

from lawful.world.styled import StyledCase

SCENES: dict[tuple[str, str], Callable[[int, int], StyledCase]] = {}


def scene(suite: str, task: str):
    """Decorator registering ``build(index, seed) -> StyledCase`` as the studio scene of ``suite``/``task``."""

    def deco(build):
        SCENES[(suite, task)] = build
        return build

    return deco
