"""Physics helpers for studio scenes: per-body gravity hooks and restitution by contact ``solref``."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol

from lawful.world.studio._gl import pick_gl

pick_gl()

import mujoco  # noqa: E402


class World(Protocol):
    """What a hook needs of a world (:class:`lawful.world.studio.engine.World` provides it)."""

    model: Any

    def id(self, kind: str, name: str) -> int: ...


TIMESTEP = 0.001
Hook = Callable[[World, mujoco.MjData], None]


def gravity_scale(world: World, bodies: dict[str, float]) -> Hook:
    """A hook giving each named body (with its subtree) gravity ``scale * g``: adds ``(scale - 1) m g``."""
    m = world.model
    ids = {world.id("body", b): s for b, s in bodies.items()}

    def hook(w: World, d: mujoco.MjData) -> None:
        for bid, s in ids.items():
            d.xfrc_applied[bid, 2] = (s - 1.0) * m.body_subtreemass[bid] * m.opt.gravity[2]

    return hook


def chain(*hooks: Hook | None) -> Hook | None:
    hs = [h for h in hooks if h is not None]
    if not hs:
        return None

    def hook(w: World, d: mujoco.MjData) -> None:
        for h in hs:
            h(w, d)

    return hook


CONTACT_K = 2.0e5  # contact stiffness (1/s²; MuJoCo's reference acceleration is mass-free)


@lru_cache(maxsize=64)
def restitution_solref(e: float) -> str:
    """``solref`` ("-stiffness -damping") whose bounce has coefficient of restitution ``e``.

    Found by bisection on the damping of a simulated drop (1 m onto a plane, RK4 at 1 ms); the
    geom carrying it needs ``priority="1"`` so its parameters win over the floor's.
    """
    lo, hi = 0.0, 2 * math.sqrt(CONTACT_K) * 1.5
    for _ in range(22):
        b = 0.5 * (lo + hi)
        if _bounce(b) > e:
            lo = b
        else:
            hi = b
    return f"-{CONTACT_K:.6g} -{0.5 * (lo + hi):.6g}"


def _bounce(b: float) -> float:
    xml = (f'<mujoco><option timestep="{TIMESTEP}" integrator="RK4"/><worldbody><geom type="plane" size="5 5 .1"/>'
           f'<body pos="0 0 1.05"><freejoint/><geom type="sphere" size="0.05" priority="1" '
           f'solref="-{CONTACT_K:.6g} -{b:.6g}" solimp="0.99 0.99 0.001"/></body></worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    v_in = None
    while d.time < 1.5:
        vz = d.qvel[2]
        mujoco.mj_step(m, d)
        if v_in is None and d.ncon:
            v_in = -vz
        if v_in is not None and not d.ncon and d.qvel[2] > 0:
            return float(d.qvel[2] / v_in)
    return 0.0
