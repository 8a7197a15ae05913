"""The ``studio`` render style: scenes simulated and rendered in 3-D by MuJoCo, independent of lawful's 2-D renderer.

MuJoCo integrates the motion itself (contacts, friction, rolling, joints), so the law-correct clips are
an independent check on lawful's closed forms; anti-physics twins change exactly the law a task tests.
Frames are rendered offscreen (EGL or OSMesa) with perspective, shading, shadows and textured backdrops,
then degraded like a camera would: sub-frame motion blur, sensor noise, lighting flicker, small jitter.

Scene builders live in ``scenes_*.py`` modules and register themselves per ``(suite, task)`` with :func:`lawful.world.studio.registry.scene`;
:class:`StudioStyle` finds them. Needs the ``studio`` extra (``mujoco``).
"""

from __future__ import annotations

import importlib
import pkgutil

from lawful.world.studio.registry import SCENES
from lawful.world.styled import StyledCase


def _load() -> None:
    """Import every ``scenes_*`` module of this package (each registers its builders)."""
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("scenes_"):
            importlib.import_module(f"{__name__}.{info.name}")


class StudioStyle:
    """MuJoCo scenes for the tasks listed in :data:`~lawful.world.studio.registry.SCENES`."""

    name = "studio"

    def supports(self, suite: str, task: str) -> bool:
        _load()
        return (suite, task) in SCENES

    def make(self, suite: str, task: str, index: int, seed: int) -> StyledCase:
        _load()
        try:
            build = SCENES[(suite, task)]
        except KeyError:
            raise KeyError(f"the studio style has no scene for {suite}/{task}") from None
        return build(index, seed)
