"""What a render style makes: :class:`StyledCase` (a case, its first frame and its renderer) and the
:class:`Style` protocol. Kept apart from :mod:`lawful.world.styles` (which picks a style by name and
loads the studio lazily) so the studio's scene builders can use it without an import cycle."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from lawful.case import Case


@dataclass
class StyledCase:
    """One scene of one task in one style: its case, first frame ``[H, W, 3]`` uint8 RGB and renderer.

    ``render(law)`` yields ``case.n_frames`` RGB frames of the same size; frame 0 equals ``first_frame``.
    """

    case: Case
    first_frame: np.ndarray
    render: Callable[[str], Iterator[np.ndarray]]


class Style(Protocol):
    name: str

    def supports(self, suite: str, task: str) -> bool:
        """Whether this style can draw ``task`` of ``suite``."""

    def make(self, suite: str, task: str, index: int, seed: int) -> StyledCase:
        """The ``index``-th scene of ``task`` with parameters drawn from ``seed``."""
