"""Kit of the studio scenes of the WMLE matter, thermal, granular and fluid tasks (P24–P28, P34–P40).

- :func:`fluid_drag` — a hook adding buoyancy and linear (Stokes) drag to free bodies settling in a liquid
  (MuJoCo integrates ``m a = (m − ρ_f V) g − c v``; its own fluid model adds a quadratic term);
- :func:`cone_fill` — vertices of the fill of an upright cone (apex at the bottom) up to a height;
- :class:`Scaled` — a world whose mesh solids are scaled about anchors frame by frame (a cone's fill, a growing
  pile), the scale carried in the recording by a parameter joint (:func:`parameter`);
- :func:`hold_free` — a hook keeping free bodies at rest until a release time;
- :func:`board` — a plain pale board behind an apparatus; :func:`masks_through` — masks seen through glass;
- :func:`film_arc`, :func:`film_segment` — soap films seen edge-on (P39); :func:`drop_state` — two drops
  merging (P40).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world import physics_more as pm
from lawful.world.studio import engine as E

PARK = -20.0  # metres below the floor: where parameter bodies sit (outside every view)


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


class Scaled(E.World):
    """A world whose named mesh geoms are scaled uniformly about fixed anchor points, frame by frame (a cone's fill
    drained from its apex, a pile grown about its base centre), and whose named materials change colour. Each morph reads its scale from a parameter slide
    joint (a body with no geoms, :func:`parameter`) ``qpos / ref``, so recordings (:func:`~._wmle_p16_p33.kinematic`)
    carry it with the rest of the state and blur, masks and effects are the engine's own. Build with
    :meth:`of` instead of ``Stage.build``; ``morphs``: ``[(geom, anchor_xyz, joint, ref)]``."""

    @classmethod
    def of(cls, st: E.Stage, morphs: list[tuple[str, tuple, str, float]] = (),
           tints: list[tuple[str, str, tuple, tuple]] = (), sizes: list[tuple[str, tuple[str, ...]]] = ()
           ) -> "Scaled":
        """``tints``: ``[(material, joint, rgba0, rgba1)]`` — the material's colour mixed from ``rgba0`` (parameter 0)
        to ``rgba1`` (1), channels 0–1 (water turning to ice). ``sizes``: ``[(geom, (joint, …))]`` — a primitive
        geom's size components (radius, half-lengths, semi-axes) read from parameter joints (a drop growing,
        a spheroid oscillating)."""
        import mujoco

        w = cls(st, mujoco.MjModel.from_xml_string(st.xml(), st.assets))
        m = w.model
        w._tints = [(mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_MATERIAL, mat), K.qadr(w, joint), np.asarray(c0, float),
                     np.asarray(c1, float)) for mat, joint, c0, c1 in tints]
        w._morphs = []
        for geom, anchor, joint, ref in morphs:
            g = w.id("geom", geom)
            mid = int(m.geom_dataid[g])
            R = np.zeros(9)
            mujoco.mju_quat2Mat(R, m.geom_quat[g])
            a = R.reshape(3, 3).T @ (np.asarray(anchor, float) - m.geom_pos[g])  # the anchor in the mesh's frame
            v0, n = int(m.mesh_vertadr[mid]), int(m.mesh_vertnum[mid])
            w._morphs.append((mid, slice(v0, v0 + n), m.mesh_vert[v0:v0 + n].copy(), a, K.qadr(w, joint), float(ref)))
        w._sizes = [(w.id("geom", g), [K.qadr(w, j) for j in joints]) for g, joints in sizes]
        w._scale_now = {}
        return w

    def _set(self, d, rec, i, s) -> None:
        import mujoco

        super()._set(d, rec, i, s)
        for mat, adr, c0, c1 in self._tints:
            f = min(max(float(d.qpos[adr]), 0.0), 1.0)
            self.model.mat_rgba[mat] = (1 - f) * c0 + f * c1
        for g, adrs in self._sizes:
            size = np.maximum(d.qpos[adrs], 1e-6)
            self.model.geom_size[g, :len(adrs)] = size
            self.model.geom_rbound[g] = float(np.linalg.norm(size)) if len(adrs) > 1 else float(size[0])
        for mid, sl, v, a, adr, ref in self._morphs:
            k = max(float(d.qpos[adr]) / ref, 1e-4)
            if self._scale_now.get(mid) == k:
                continue
            self.model.mesh_vert[sl] = a + k * (v - a)
            self._scale_now[mid] = k
            if self._renderer is not None and self._renderer._mjr_context is not None:
                mujoco.mjr_uploadMesh(self.model, self._renderer._mjr_context, mid)


def parameter(st: E.Stage, name: str) -> None:
    """A geom-less body on a slide joint ``<name>_j`` whose position is a scene parameter (see :class:`Scaled`)."""
    K.slide_body(st, name, (0.0, 0.0, PARK))
    st.bodies[-1].parts.append('<inertial pos="0 0 0" mass="1e-3" diaginertia="1e-9 1e-9 1e-9"/>')


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


def board(st: E.Stage, rng: np.random.Generator, x0: float, x1: float, z0: float, z1: float, y: float,
          grey: tuple[float, float] = (190, 235)) -> None:
    """A plain board (pale unless ``grey`` says) behind the apparatus, ``x0..x1`` × ``z0..z1`` at depth ``y``."""
    tone = np.clip(rng.uniform(*grey) + rng.uniform(-10, 10, 3), 0, 255)
    st.fixed(E.box(0.5 * (x1 - x0), 0.006, 0.5 * (z1 - z0)), (0.5 * (x0 + x1), y, 0.5 * (z0 + z1)),
             tuple(tone), 0.1, **E.NO_CONTACT)


def film_arc(body: E.Body, mats: list[str], c, r: float, a0: float, a1: float, thick: float, phase: float,
             step_deg: float = 2.0) -> None:
    """A film seen edge-on: a chain of thin capsules along the circle ``(c, r)`` (world x–z plane, angles from +x
    towards +z) between ``a0`` and ``a1``, its colour running through the thin-film ``mats`` with the angle."""
    n = max(2, int(math.ceil(abs(a1 - a0) / math.radians(step_deg))))
    a = np.linspace(a0, a1, n + 1)
    p = np.stack([c[0] + r * np.cos(a), np.zeros_like(a), c[1] + r * np.sin(a)], 1)
    for i in range(n):
        m = mats[int((0.5 * (a[i] + a[i + 1]) * 2 + phase) / (2 * math.pi) * len(mats)) % len(mats)]
        body.parts.append(f'<geom type="capsule" size="{thick:.5g}" fromto="{E._vec(p[i])} {E._vec(p[i + 1])}" '
                          f'material="{m}" contype="0" conaffinity="0"/>')


def film_segment(body: E.Body, mat: str, a, b, thick: float) -> None:
    """A straight film seen edge-on from ``a`` to ``b`` (world x–z points): one thin capsule."""
    body.parts.append(f'<geom type="capsule" size="{thick:.5g}" fromto="{a[0]:.6g} 0 {a[1]:.6g} {b[0]:.6g} 0 '
                      f'{b[1]:.6g}" material="{mat}" contype="0" conaffinity="0"/>')


def drop_state(t: float, k: dict, law: str) -> dict[str, float]:
    """The drops' state at ``t`` (m): centres ``x_big``/``x_small``, the big drop's spheroid semi-axes ``a``
    (along the merge axis) and ``b``, the small drop's radius ``r_small``, the neck's radius and half-length.

    Before contact the two round drops drift together, their centre of mass at rest. Merging (a smoothstep
    ``s`` over ``t_merge``) the small drop sinks into the big one while its volume flows over:
    ``r_small³ = rs³ (1 − s)``, ``r_big³ = rb³ + s (W − rb³)`` with ``W = r_f³`` (``(r1² + r2²)^{3/2}`` in the twin),
    the pair's centre of mass kept; the big one stretches along the axis to the ``ε0`` spheroid. Then the
    volume-preserving spheroid ``a = r_f (1 + ε)``, ``b = r_f / √(1 + ε)``, ``ε = ε0 e^{−u/τ} cos ω u``
    (the drop's l = 2 mode: Rayleigh's frequency, Lamb's viscous decay)."""
    rb, rs, xc, sgn = k["rb"], k["rs"], k["xc"], k["sgn"]
    rf = k["rf"] if law == "true" else k["rf_anti"]
    tc, tm = k["t_contact"], k["t_merge"]
    hide = 1e-6
    if t < tc:
        d = rb + rs + k["gap"] * (1.0 - t / tc)
        xb = xc - sgn * d * rs**3 / (rb**3 + rs**3)
        return {"x_big": xb, "a": rb, "b": rb, "x_small": xb + sgn * d, "r_small": rs, "x_neck": xb,
                "neck_r": hide, "neck_l": hide}
    if t < tc + tm:
        s = (t - tc) / tm
        s = s * s * (3 - 2 * s)
        r2 = rs * (1.0 - s) ** (1.0 / 3.0)
        r1 = (rb**3 + s * (rf**3 - rb**3)) ** (1.0 / 3.0)
        d = (1.0 - s) * (rb + rs)
        xb = xc - sgn * d * r2**3 / (r1**3 + r2**3)
        a, b = pm.spheroid_axes(r1, k["eps0"] * s)
        return {"x_big": xb, "a": a, "b": b, "x_small": xb + sgn * d, "r_small": max(r2, hide),
                "x_neck": xb + 0.5 * sgn * d, "neck_r": max(r2 * (0.45 + 0.45 * s), hide), "neck_l": max(0.5 * d, hide)}
    u = t - tc - tm
    eps = k["eps0"] * math.exp(-u / k["tau"]) * math.cos(k["omega"] * u)
    a, b = pm.spheroid_axes(rf, eps)
    return {"x_big": xc, "a": a, "b": b, "x_small": xc, "r_small": hide, "x_neck": xc, "neck_r": hide,
            "neck_l": hide}
