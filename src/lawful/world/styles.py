"""Render styles: independent ways of drawing a task's law-correct clip and its anti-physics twin.

A style turns ``(suite, task, index, seed)`` into a :class:`StyledCase`: the case file a user would
write for that scene (object ids, first-frame boxes and colours, the ``known`` values the task
needs), its first frame, and a ``render(law)`` that yields the frames of the law-correct clip
(``law="true"``) or of its anti-physics twin (``"anti"``). ``lawful validate --style NAME`` scores
both with the normal evaluator, so a style is a check on perception and measurement that lawful's
own drawing code cannot bias.

Styles:

- ``flat``: each task's own ``make_case`` / ``render`` (lawful's 2-D renderer);
- ``studio``: scenes simulated and rendered in 3-D by MuJoCo (:mod:`lawful.world.studio`, the
  ``studio`` extra): perspective, shading, shadows, textured backdrops, motion blur, sensor noise.
"""

from __future__ import annotations

from lawful.world.styled import Style, StyledCase

__all__ = ["STYLES", "FlatStyle", "Style", "StyledCase", "get_style"]


class FlatStyle:
    """lawful's own 2-D renderer: the task's ``make_case`` and ``render``."""

    name = "flat"

    def supports(self, suite: str, task: str) -> bool:
        from lawful.suite_registry import get_suite

        return task in get_suite(suite).tasks

    def make(self, suite: str, task: str, index: int, seed: int) -> StyledCase:
        from lawful.suite_registry import get_suite

        t = get_suite(suite).task(task)
        case, first = t.make_case(index, seed)
        return StyledCase(case, first, lambda law: t.render(case, law))


STYLES = ("flat", "studio")


def get_style(name: str) -> Style:
    """The style called ``name`` (``studio`` needs the optional ``mujoco`` package)."""
    if name == "flat":
        return FlatStyle()
    if name == "studio":
        try:
            from lawful.world.studio import StudioStyle
        except ModuleNotFoundError as e:
            if e.name == "mujoco":
                raise RuntimeError("the studio style needs MuJoCo: pip install 'lawful[studio]'") from None
            raise
        return StudioStyle()
    from lawful.choices import unknown

    raise KeyError(unknown(name, STYLES, "render style"))
