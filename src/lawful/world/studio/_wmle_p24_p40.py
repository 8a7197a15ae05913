"""Kit of the studio scenes of the WMLE matter, thermal, granular and fluid tasks (P24–P28, P34–P40).

- :func:`fluid_drag` — a hook adding buoyancy and linear (Stokes) drag to free bodies settling in a liquid
  (MuJoCo integrates ``m a = (m − ρ_f V) g − c v``; its own fluid model adds a quadratic term);
- :func:`cone_fill` — vertices of the fill of an upright cone (apex at the bottom) up to a height;
- :class:`Frames` — one mesh per frame on slide bodies, the one of the frame shown and the others parked out
  of sight: a shape that changes (a cone's fill, a growing pile) given in closed form per frame, recorded
  with :func:`~lawful.world.studio._wmle_p16_p33.kinematic`;
- :func:`hold_free` — a hook keeping free bodies at rest until a release time.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import engine as E

PARK = -20.0  # metres below the floor: where the meshes of other frames wait (outside every view)


def fluid_drag(world: E.World, bodies: dict[str, tuple[float, float]], rho_f: float) -> E.Hook:
    """Hook: on each named free body (``{body: (drag c in N·s/m, volume m³)}``) a buoyancy ``ρ_f V g`` up and a
    drag ``−c v`` on its centre of mass (linear velocity of its free joint)."""
    m = world.model
    items = []
    for b, (c, vol) in bodies.items():
        bid = world.id("body", b)
        items.append((bid, int(m.jnt_dofadr[m.body_jntadr[bid]]), float(c), rho_f * vol * E.G))

    def hook(w: E.World, d) -> None:
        for bid, dof, c, lift in items:
            d.xfrc_applied[bid, :3] = -c * d.qvel[dof:dof + 3]
            d.xfrc_applied[bid, 2] += lift

    return hook


def hold_free(world: E.World, bodies: list[str], t_release: float) -> E.Hook:
    """Hook: the named free bodies stay at their initial pose and at rest until ``t_release``."""
    m = world.model
    slots = []
    for b in bodies:
        j = m.body_jntadr[world.id("body", b)]
        slots.append((int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j])))
    q0 = {qa: None for qa, _ in slots}

    def hook(w: E.World, d) -> None:
        for qa, da in slots:
            if q0[qa] is None:
                q0[qa] = d.qpos[qa:qa + 7].copy()
            if d.time < t_release - 1e-9:
                d.qpos[qa:qa + 7] = q0[qa]
                d.qvel[da:da + 6] = 0.0

    return hook


def cone_fill(apex, tan_a: float, h: float, n: int = 40) -> np.ndarray:
    """Vertices ``[n + 1, 3]`` of the solid filling an upright cone (apex at ``apex``, half-angle ``atan(tan_a)``)
    up to ``h`` above the apex: the apex and a ring at the surface."""
    x, y, z = apex
    r = max(h, 1e-5) * tan_a
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    ring = np.stack([x + r * np.cos(a), y + r * np.sin(a), np.full(n, z + max(h, 1e-5))], 1)
    return np.vstack([[x, y, z], ring])


def cone_shell(apex, tan_a: float, h0: float, h1: float, n: int = 40) -> np.ndarray:
    """Vertices of a cone's frustum between heights ``h0 < h1`` above its apex (a convex funnel body)."""
    x, y, z = apex
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    rings = [np.stack([x + hh * tan_a * np.cos(a), y + hh * tan_a * np.sin(a), np.full(n, z + hh)], 1) for hh in (h0, h1)]
    return np.vstack(rings)


class Frames:
    """Per-frame meshes of one changing solid: ``verts_of(i) -> [N, 3]`` for frames ``0..n-1``, with material
    ``mat``; :meth:`qpos` shows frame ``i`` (its body's slide at 0) and parks the others ``PARK`` metres down."""

    def __init__(self, st: E.Stage, name: str, n: int, verts_of: Callable[[int], np.ndarray], mat: str,
                 obj: str | None = None):
        self.name, self.n = name, int(n)
        for i in range(self.n):
            K.mesh(st, f"{name}_m{i}", verts_of(i))
            b = K.slide_body(st, f"{name}_{i}", (0.0, 0.0, 0.0))
            g = f"{name}_{i}_g"
            b.parts.append(f'<geom name="{g}" type="mesh" mesh="{name}_m{i}" material="{mat}" '
                           f'contype="0" conaffinity="0"/>')
            if obj is not None and i == 0:
                st.objects.setdefault(obj, []).append(g)

    def bind(self, world: E.World) -> None:
        self.adr = np.array([K.qadr(world, f"{self.name}_{i}_j") for i in range(self.n)])

    def set(self, q: np.ndarray, i: int) -> None:
        q[self.adr] = PARK
        q[self.adr[min(max(int(i), 0), self.n - 1)]] = 0.0


def frame_index(t: float, duration: float, n: int) -> int:
    """The frame whose exposure holds time ``t`` (frame ``i`` is centred on ``i · duration / n``)."""
    return int(min(max(round(t * n / duration), 0), n - 1))


def masks_through(world: E.World, rec: E.Recording, see_through: list[str]) -> dict[str, np.ndarray]:
    """First-frame masks of the watched objects with the named (translucent) geoms left out of the segmentation
    render: an object behind glass or liquid is seen through it, so it is visible."""
    m = world.model
    ids = [world.id("geom", g) for g in see_through]
    saved = m.geom_group[ids].copy()
    m.geom_group[ids] = 5  # a group the default scene options do not draw
    try:
        return world.masks(rec)
    finally:
        m.geom_group[ids] = saved
