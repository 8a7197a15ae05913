"""Studio scenes of the WMLE melting tasks P26–P28, drawn in 3-D by MuJoCo (kit: :func:`~._wmle_p16_p33.jar`).

- P26 ``ice_with_stone``: a square glass jar of dyed water (a grey board behind), a tall block of freshwater ice
  with a dark stone frozen at its centre floating in it. Motion: **kinematic**, Archimedes' closed form: the ice's
  volume falls linearly; ice and stone float (displacing their weight) until their mean density reaches the
  water's, when the block sinks to the bottom; from then on they displace their volume, so the level falls as
  ``(1 − ρ_i/ρ_w) V_ice / A`` melts, in all by ``V_s (ρ_s/ρ_w − 1) / A`` (the stone's share ``u`` of the most
  the ice can carry sets how far: the block floats lower the larger it is). The ice is a translucent mesh scaled
  about its centre (:class:`~._wmle_p24_p40.Scaled`), the water a box on a slide joint. The camera is level with
  the surface. Twin: the level rises by as much as it falls.
- P27 ``ice_in_salt_water``: the same jar holding dyed brine (ρ_s 1150–1200 kg/m³), a block of freshwater ice
  floating in it with ``ρ_i/ρ_s`` of its height under. Motion: **kinematic**, the closed form
  (:func:`lawful.world.melting.melt_level_change`): the ice's volume falls linearly to nothing
  (:func:`lawful.world.liquids.melt_side`), the level rises by ``m (1/ρ_f − 1/ρ_s) / A`` in step with the melted
  mass; the ice is scaled about its waterline and rides on the level. Twin: the level falls by as much, or stays
  (``anti_mode``), the ice melting alike.
- P28 ``crushed_vs_intact_ice``: two identical square jars side by side with the same shallow layer of dyed water,
  each with a perforated shelf high above it: on one shelf a heap of 27 small cubes of ice (16, 9 and 2 in three
  layers), on the other one block of the same mass. Motion: **kinematic**, the task's closed form: every edge
  recedes at one speed (melting goes with the surface, :func:`lawful.world.melting.melted_fraction`), pieces shrink
  about their bottoms and the layers above settle onto them; the meltwater drips through the shelf, so each level
  is the layer plus the melted mass over the cross-section exactly (no ice in the water, nothing displaced). The
  camera is level with the middle of the levels' range. Twin: the block melts as fast as the heap.
"""

from __future__ import annotations

import math
import re

import numpy as np

from lawful.world import liquids as lq
from lawful.world import melting as mt
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import _wmle_p24_p40 as P
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0
RHO_I = lq.RHO_ICE / lq.RHO_WATER  # relative to the (fresh) water


def _box_mesh(st: E.Stage, name: str, centre, half) -> None:
    c, h = np.asarray(centre, float), np.asarray(half, float)
    K.mesh(st, name, [c + h * np.array([sx, sy, sz]) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])


def _tint(rng: np.random.Generator) -> tuple[int, int, int]:
    tint = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
    return tuple(int(0.45 * c + 0.55 * 235) for c in tint)


def _clear_of_posts(world: E.World, w: float, dp: float, z: float, x: float = 0.0, pad: float = 3.0):
    """Columns (px) just inside a jar's four corner posts at height ``z``: the back posts, seen nearer the middle."""
    xs = [world.project((x + sx * 0.5 * w, sy * 0.5 * dp, z))[0] for sx in (-1, 1) for sy in (-1, 1)]
    return max(xs[:2]) + pad, min(xs[2:]) - pad


def stone_ice(V0: float, share: float, rho_s: float) -> tuple[float, float]:
    """Stone volume and the ice volume at which ice and stone sink, for a block of outer volume ``V0`` whose stone
    uses ``share`` of the most weight the ice can float: ``(ρ_s − 1) V_s = share (1 − ρ_i) (V0 − V_s)``."""
    v_s = share * (1 - RHO_I) * V0 / (rho_s - 1 + share * (1 - RHO_I))
    return v_s, (rho_s - 1) * v_s / (1 - RHO_I)


# ----------------------------------------------------------------------------- P26


@scene("wmle", "ice_with_stone")
def ice_with_stone(index: int, seed: int) -> StyledCase:
    label = 26
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    w, dp, z_b = float(rng.uniform(0.15, 0.17)), float(rng.uniform(0.07, 0.08)), 0.018
    a, b, c = 0.55 * w, 0.88 * dp, float(rng.uniform(0.09, 0.1))  # the ice block (x, y, z)
    xc = float(rng.uniform(-0.004, 0.004))
    V0, share, rho_s = a * b * c, float(rng.uniform(0.72, 0.86)), float(rng.uniform(2.5, 2.9))
    v_s, v_sink = stone_ice(V0, share, rho_s)
    r = (3 * v_s / (4 * math.pi)) ** (1 / 3)
    v_i0 = V0 - v_s
    rho_bar = (RHO_I * v_i0 + rho_s * v_s) / V0
    A = w * dp
    z_w0 = z_b + rho_bar * c + float(rng.uniform(0.01, 0.016))
    z_top = z_w0 + (1 - rho_bar) * c + float(rng.uniform(0.02, 0.03))
    t_s, t_e = float(rng.uniform(0.5, 0.7)), float(rng.uniform(4.1, 4.4))
    t_sink = t_s + (1 - v_sink / v_i0) * (t_e - t_s)
    fall_s = float(rng.uniform(0.5, 0.7))
    drop = (rho_s - 1) * v_s / A
    duration = 6.0
    water = _tint(rng)

    st.floor()
    st.backdrop(y=float(rng.uniform(0.35, 0.55)))
    P.board(st, rng, xc - 0.5 * w - 0.08, xc + 0.5 * w + 0.08, 0.0, z_top + 0.06, y=0.5 * dp + 0.04, grey=(120, 150))
    K.jar(st, rng, "water", 0.0, w, dp, z_b, z_top, water, 0.62)
    ice = tuple(int(v) for v in rng.uniform([222, 230, 238], [238, 245, 252]))
    imat = K.glass(st, ice, float(rng.uniform(0.45, 0.55)), specular=0.7, emission=0.15)
    _box_mesh(st, "ice", (xc, 0, 0), (0.5 * a, 0.5 * b, 0.5 * c))
    ib = K.slide_body(st, "ice_b", (0.0, 0.0, 0.0))
    ib.parts.append(f'<geom name="ice_g" type="mesh" mesh="ice" material="{imat}" contype="0" conaffinity="0"/>')
    stone = tuple(int(v) for v in np.clip(np.array([62, 56, 52]) + rng.uniform(-12, 12, 3), 0, 255))
    sb = K.slide_body(st, "stone", (xc, 0.0, 0.0))
    sb.geom(E.sphere(r), rgb=stone, specular=0.2, **E.NO_CONTACT)
    P.parameter(st, "scale")
    cam = K.level_camera(st, rng, variant, (-0.5 * w - 0.05, 0.0), (0.5 * w + 0.05, z_top + 0.02), z_w0)
    world = K.near_clip(P.Scaled.of(st, morphs=[("ice_g", (xc, 0.0, 0.0), "scale_j", 1.0)]))
    qw, qi, qs, qk = (K.qadr(world, j) for j in ("water_j", "ice_b_j", "stone_j", "scale_j"))

    def state(t: float, law: str) -> tuple[float, float, float, float]:
        """Level, block centre height, stone centre height and block scale at ``t``."""
        u = min(max((t - t_s) / (t_e - t_s), 0.0), 1.0)
        v_i = v_i0 * (1 - u)
        k = ((v_i + v_s) / V0) ** (1 / 3)
        fall = (1 - RHO_I) * max(v_sink - v_i, 0.0) / A if t >= t_sink else 0.0
        z_w = z_w0 - fall if law == "true" else z_w0 + fall
        rho = (RHO_I * v_i + rho_s * v_s) / (v_i + v_s)
        z_float = z_w - rho * c * k + 0.5 * c * k
        if t < t_sink:
            z_c = z_float
        else:
            z0 = z_w0 - 0.5 * c * ((v_sink + v_s) / V0) ** (1 / 3)  # awash (as dense as water) as it begins to sink
            e = min((t - t_sink) / fall_s, 1.0)
            e = e * e * (3 - 2 * e)
            z_c = z0 + (z_b + 0.5 * c * k - z0) * e
        bare = k * a < 2 * r  # the shell around the stone has broken up
        return z_w, z_c, max(z_c, z_b + r) if not bare else z_b + r, (1e-4 if bare else k)

    def qpos_of(law: str):
        def g(t):
            q = np.zeros(world.model.nq)
            q[qw], q[qi], q[qs], q[qk] = state(t, law)
            return q
        return g

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    px = lambda x, z, y=-0.5 * dp: world.project((x, y, z))  # noqa: E731  (the jar's front face)
    xl, xr = px(-0.5 * w, z_w0)[0], px(0.5 * w, z_w0)[0]
    y_rim, y_b = px(0, z_top)[1], px(0, z_b)[1]
    z_c0 = state(0.0, "true")[1]
    il, ir = px(xc - 0.5 * a, z_w0, -0.5 * b)[0], px(xc + 0.5 * a, z_w0, -0.5 * b)[0]
    bl, br = _clear_of_posts(world, w, dp, z_w0)
    m = 0.03 * (xr - xl)
    y_s = px(0, z_w0)[1]
    y1 = min(y_s + max(y_s - y_rim, 3 * drop * world.px_per_m((0, -0.5 * dp, z_w0))), y_b - 4)  # shadows lower down
    bands = {"water_left": [bl, y_rim + 4, il - m, y1], "water_right": [ir + m, y_rim + 4, br, y1]}
    i_top, i_bot = px(xc, z_c0 + 0.5 * c, -0.5 * b)[1], px(xc, z_c0 - 0.5 * c, -0.5 * b)[1]
    ice_box = [il - 6, i_top - 10, ir + 6, i_bot + 4]
    ipts = [px(xc + dx * a, z_c0 + dz * c, -0.5 * b) for dx in (-0.38, -0.3, 0.3, 0.38) for dz in (-0.3, 0.3)]
    r2 = lambda v: [round(float(x), 2) for x in v]  # noqa: E731
    ppm = world.px_per_m((0, -0.5 * dp, z_w0))
    known = {"vessel": r2([xl, y_rim, xr, y_b]), "bands": {k: r2(v) for k, v in bands.items()}, "ice": r2(ice_box),
             "ice_color": list(K.measured_rgb(first, ipts)), "water": list(water), "melt_start_s": t_s,
             "melt_end_s": t_e, "sink_s": round(t_sink, 4), "stone_r_px": round(r * ppm, 3), "rho_stone": round(rho_s, 4),
             "level_drop_px": round(drop * ppm, 3), "anti_rise_px": round(drop * ppm, 3),
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: ice volume falls linearly; afloat until ice and stone are as dense "
                                  "as water, then on the bottom displacing their volume"},
             "anti_note": "twin: the level rises by anti_rise_px (as much as the law's drop)"}
    if any(v[2] - v[0] < 4 for v in bands.values()):
        raise ValueError(f"ice_with_stone scene {index}/{seed}: a water band is too narrow ({bands})")
    case = E.studio_case(
        "wmle", "ice_with_stone", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[], known=known,
        variant=f"studio-{variant.name}",
        prompt=("A fixed camera level with the water films in time-lapse a square, straight-sided glass jar with dark "
                "corner posts, filled with fresh water, in which a tall block of ice with a dark, heavy stone frozen "
                "inside it floats low in the middle. The ice slowly melts; the stone and what is left of the ice "
                "sink to the bottom, where the ice melts away. Nothing is poured in or taken out and the water does "
                "not evaporate. The camera does not move."),
        assumptions=["freshwater ice in fresh water", "the stone is denser than water",
                     "no water added, spilled or evaporated", "fixed side view"],
        criteria=["P26: M1 of WMLE appendix B.6"],
        quantities={"level_change_px": -drop * ppm, "e1": -drop * ppm / (y_b - px(0, z_w0)[1])})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P27


@scene("wmle", "ice_in_salt_water")
def ice_in_salt_water(index: int, seed: int) -> StyledCase:
    label = 27
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    w, dp, z_b = float(rng.uniform(0.15, 0.17)), float(rng.uniform(0.07, 0.08)), 0.018
    a, b, c = float(rng.uniform(0.5, 0.56)) * w, 0.86 * dp, float(rng.uniform(0.075, 0.09))
    xc = float(rng.uniform(-0.005, 0.005))
    rho_s = float(rng.uniform(*mt.RHO_BRINE_RANGE))
    draft = lq.RHO_ICE / rho_s
    A = w * dp
    rise = mt.melt_level_change(lq.RHO_ICE * a * b * c, A, lq.RHO_WATER, rho_s)
    z_w0 = z_b + draft * c + float(rng.uniform(0.02, 0.03))
    z_top = z_w0 + (1 - draft) * c + float(rng.uniform(0.02, 0.03))
    t_s, t_e = float(rng.uniform(0.6, 0.8)), float(rng.uniform(4.0, 4.4))
    duration = 6.0
    mode = ["falls", "stays"][int(rng.integers(2))]
    brine = _tint(rng)

    st.floor()
    st.backdrop(y=float(rng.uniform(0.35, 0.55)))
    P.board(st, rng, -0.5 * w - 0.08, 0.5 * w + 0.08, 0.0, z_top + 0.06, y=0.5 * dp + 0.04, grey=(120, 150))
    K.jar(st, rng, "brine", 0.0, w, dp, z_b, z_top, brine, 0.55, specular=0.15)
    ice = tuple(int(v) for v in rng.uniform([222, 230, 238], [238, 245, 252]))
    imat = K.glass(st, ice, 1.0, specular=0.7, emission=0.3)
    _box_mesh(st, "ice", (xc, 0, z_w0 + (0.5 - draft) * c), (0.5 * a, 0.5 * b, 0.5 * c))
    ib = K.slide_body(st, "ice_b", (0.0, 0.0, 0.0))  # rides on the level
    ib.parts.append(f'<geom name="ice_g" type="mesh" mesh="ice" material="{imat}" contype="0" conaffinity="0"/>')
    P.parameter(st, "scale")
    z_mid = z_w0 + 0.5 * rise
    cam = K.level_camera(st, rng, variant, (-0.5 * w - 0.05, 0.0), (0.5 * w + 0.05, z_top + 0.02), z_mid)
    world = K.near_clip(P.Scaled.of(st, morphs=[("ice_g", (xc, 0.0, z_w0), "scale_j", 1.0)]))
    qw, qi, qk = (K.qadr(world, j) for j in ("brine_j", "ice_b_j", "scale_j"))

    def qpos_of(law: str):
        sign = 1.0 if law == "true" else {"falls": -1.0, "stays": 0.0}[mode]

        def g(t):
            q = np.zeros(world.model.nq)
            k = float(lq.melt_side(t, 1.0, t_s, t_e))
            up = sign * rise * (1 - k**3)
            q[qw], q[qi], q[qk] = z_w0 + up, up, k if k > 0.03 else 1e-4
            return q
        return g

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    px = lambda x, z, y=-0.5 * dp: world.project((x, y, z))  # noqa: E731  (the jar's front face)
    xl, xr = px(-0.5 * w, z_w0)[0], px(0.5 * w, z_w0)[0]
    y_rim, y_b, y_s = px(0, z_top)[1], px(0, z_b)[1], px(0, z_w0)[1]
    il, ir = px(xc - 0.5 * a, z_w0, -0.5 * b)[0], px(xc + 0.5 * a, z_w0, -0.5 * b)[0]
    bl, br = _clear_of_posts(world, w, dp, z_w0)
    m = 0.03 * (xr - xl)
    ppm = world.px_per_m((0, -0.5 * dp, z_w0))
    reach = max(rise * ppm + 12, 0.25 * (y_b - y_s))
    bands = {"left": [bl, y_rim + 4, il - m, y_s + reach], "right": [ir + m, y_rim + 4, br, y_s + reach]}
    y_under = px(0, z_w0 - 0.25 * draft * c)[1]  # clear of the surface seen from below (its highlight)
    region = [xl + 3, max(y_under, y_s + 16), xr - 3, y_b - 3]
    ipts = [px(xc + dx * a, z_w0 - dz * draft * c, -0.5 * b) for dx in (-0.3, 0, 0.3) for dz in (0.3, 0.6)]
    r2 = lambda v: [round(float(x), 2) for x in v]  # noqa: E731
    known = {"level_bands": {k: r2(v) for k, v in bands.items()}, "ice_region": r2(region),
             "ice": list(K.measured_rgb(first, ipts)), "bottom_y": round(y_b, 2), "cavity": r2([xl, y_rim, xr, y_b]),
             "y_surface": round(y_s, 2), "rho_salt": round(rho_s, 2), "rise_px": round(rise * ppm, 3),
             "melt_s": [t_s, t_e], "brine": list(brine), "anti_mode": mode,
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: ice volume falls linearly; level rises m (1/rho_f - 1/rho_s) / A"},
             "anti_note": "twin: the level falls by rise_px (anti_mode 'falls') or stays ('stays')"}
    if any(v[2] - v[0] < 4 for v in bands.values()):
        raise ValueError(f"ice_in_salt_water scene {index}/{seed}: a level band is too narrow ({bands})")
    case = E.studio_case(
        "wmle", "ice_in_salt_water", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera level with the surface films in time-lapse a square, straight-sided glass jar with "
                "dark corner posts, holding strongly salted, dyed water. A large block of ice made from fresh water "
                "floats in it and melts away completely. Nothing is added or removed, the water does not evaporate "
                "and the camera does not move."),
        assumptions=["ice of fresh water, brine denser than fresh water", "no material exchange, no evaporation",
                     "straight-sided vessel", "fixed side view"],
        criteria=["P27: M1/M2 of WMLE appendix B.6"],
        quantities={"rise_px": rise * ppm, "e1": rise * ppm / (y_b - y_s), "s2": 1.0})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P28

HEAP = ((4, 4), (3, 3), (2, 1))  # pieces per layer (x, y), bottom up: 16 + 9 + 2 = 27 = 3³


@scene("wmle", "crushed_vs_intact_ice")
def crushed_vs_intact_ice(index: int, seed: int) -> StyledCase:
    from lawful.world.scenes.ice import SIDES

    label = 28
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    w, dp, z_b = float(rng.uniform(0.095, 0.11)), float(rng.uniform(0.07, 0.078)), 0.018
    gap = float(rng.uniform(0.05, 0.08))
    crushed_left = bool(rng.integers(2))
    xs = dict(zip(SIDES if crushed_left else SIDES[::-1], (-0.5 * (w + gap), 0.5 * (w + gap))))
    s_b = float(rng.uniform(0.044, 0.05))
    n = sum(a * b for a, b in HEAP)
    s_p = s_b / n ** (1 / 3)
    speed = s_p / float(rng.uniform(2.6, 3.2))
    t0 = float(rng.uniform(0.3, 0.5))
    A = w * dp
    h0 = float(rng.uniform(0.014, 0.02))
    rise = lq.RHO_ICE * s_b**3 / (lq.RHO_WATER * A)
    z_shelf = z_b + h0 + rise + float(rng.uniform(0.012, 0.018))
    z_top = z_shelf + 0.004 + s_b + float(rng.uniform(0.015, 0.025))
    duration = 6.0
    water = _tint(rng)
    ice = tuple(int(v) for v in rng.uniform([222, 230, 238], [238, 245, 252]))
    shelf = tuple(int(v) for v in rng.uniform(70, 110, 3))

    st.floor()
    st.backdrop(y=float(rng.uniform(0.35, 0.55)))
    x_lo, x_hi = min(xs.values()) - 0.5 * w, max(xs.values()) + 0.5 * w
    P.board(st, rng, x_lo - 0.06, x_hi + 0.06, 0.0, z_top + 0.05, y=0.5 * dp + 0.04, grey=(120, 150))
    imat = K.glass(st, ice, 0.92, specular=0.7, emission=0.25)
    morphs, z_on = [], z_shelf + 0.004
    for sd, x in xs.items():
        K.jar(st, rng, f"water_{sd}", x, w, dp, z_b, z_top, water, 0.5)
        st.fixed(E.box(0.5 * w - 0.001, 0.5 * dp - 0.001, 0.002), (x, 0, z_shelf + 0.002), shelf, 0.3, **E.NO_CONTACT)
        if sd == "intact":
            _box_mesh(st, "block", (x, 0, z_on + 0.5 * s_b), (0.5 * s_b,) * 3)
            b = K.slide_body(st, "block_b", (0.0, 0.0, 0.0))
            b.parts.append(f'<geom name="block_g" type="mesh" mesh="block" material="{imat}" contype="0" '
                           'conaffinity="0"/>')
            morphs.append(("block_g", (x, 0.0, z_on), "edge_intact_j", s_b))
            continue
        for L, (nx, ny) in enumerate(HEAP):
            b = K.slide_body(st, f"layer{L}", (0.0, 0.0, 0.0))
            for i in range(nx):
                for j in range(ny):
                    c = (x + (i - 0.5 * (nx - 1)) * 1.04 * s_p, (j - 0.5 * (ny - 1)) * 1.04 * s_p, z_on + L * s_p)
                    name = f"piece{L}_{i}_{j}"
                    _box_mesh(st, name, (c[0], c[1], c[2] + 0.5 * s_p), (0.5 * s_p,) * 3)
                    b.parts.append(f'<geom name="{name}_g" type="mesh" mesh="{name}" material="{imat}" '
                                   'contype="0" conaffinity="0"/>')
                    morphs.append((f"{name}_g", c, "edge_crushed_j", s_p))
    for sd in SIDES:
        P.parameter(st, f"edge_{sd}")
    z_mid = z_b + h0 + 0.5 * rise
    cam = K.level_camera(st, rng, variant, (x_lo - 0.04, 0.0), (x_hi + 0.04, z_top + 0.02), z_mid)
    kx = float(rng.uniform(-0.4, 0.4))  # key light from above and a little behind: shelf shadows fall forward, off the board
    lights = (f'<light name="key" directional="true" castshadow="true" dir="{kx:.3g} -0.35 -1" diffuse=".62 .62 .62" '
              'specular=".2 .2 .2"/><light name="fill" directional="true" castshadow="false" dir="0 0.8 -0.5" '
              'diffuse=".38 .38 .38" specular="0 0 0"/>')
    xml = re.sub(r'<light name="(key|fill)"[^>]*/>', "", st.xml(), count=2).replace("<worldbody>", "<worldbody>" + lights, 1)
    st.xml = lambda: xml  # what Scaled.of compiles
    world = K.near_clip(P.Scaled.of(st, morphs=morphs))
    qa = {j: K.qadr(world, j) for j in ("water_crushed_j", "water_intact_j", "edge_crushed_j", "edge_intact_j",
                                         *(f"layer{L}_j" for L in range(len(HEAP))))}

    def qpos_of(law: str):
        def g(t):
            q = np.zeros(world.model.nq)
            e_c = float(mt.cube_sizes(t - t0, [s_p], speed)[0, 0])
            f_c = 1 - (e_c / s_p) ** 3
            f_b = f_c if law == "anti" else 1 - (float(mt.cube_sizes(t - t0, [s_b], speed)[0, 0]) / s_b) ** 3
            q[qa["water_crushed_j"]] = z_b + h0 + rise * f_c
            q[qa["water_intact_j"]] = z_b + h0 + rise * f_b
            q[qa["edge_crushed_j"]] = e_c if e_c > 0.02 * s_p else 1e-6
            q[qa["edge_intact_j"]] = s_b * (1 - f_b) ** (1 / 3) if f_b < 0.999 else 1e-6
            for L in range(len(HEAP)):
                q[qa[f"layer{L}_j"]] = L * (e_c - s_p)  # each layer settles on the shrunken one below
            return q
        return g

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    r2 = lambda v: [round(float(x), 2) for x in v]  # noqa: E731
    vessels, bands = {}, {}
    for sd, x in xs.items():
        px = lambda xx, z: world.project((xx, -0.5 * dp, z))  # noqa: E731,B023  (the jar's front face)
        xl, xr = px(x - 0.5 * w, z_mid)[0], px(x + 0.5 * w, z_mid)[0]
        y_rim, y_b = px(x, z_top)[1], px(x, z_b)[1]
        y_sh = world.project((x, 0.5 * dp, z_shelf))[1]  # the shelf's far edge: seen from below, its lowest row
        y_low = px(x, z_b + 0.3 * h0)[1]  # inside the initial water, above the jar's bottom
        bl, br = _clear_of_posts(world, w, dp, z_mid, x)
        m = 0.06 * (xr - xl)
        xc = 0.5 * (xl + xr)
        vessels[sd] = r2([xl, y_rim, xr, y_b])
        bands[sd] = {"left": r2([bl, y_sh + 4, xc - m, y_low]), "right": r2([xc + m, y_sh + 4, br, y_low])}
    ppm = world.px_per_m((0, -0.5 * dp, z_mid))
    t = recs["true"].times[:, recs["true"].times.shape[1] // 2]
    f_c = mt.melted_fraction(t - t0, [s_p], speed)
    f_b = mt.melted_fraction(t - t0, [s_b], speed)
    known = {"vessels": vessels, "bands": bands, "water_px": round(h0 * ppm, 3), "rise_px": round(rise * ppm, 3),
             "edge_px": {"crushed": round(s_p * ppm, 3), "intact": round(s_b * ppm, 3)}, "pieces": n,
             "edge_speed_px_s": round(speed * ppm, 4), "melt_start_s": t0, "water": list(water),
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: edges recede at one speed; meltwater drips through the shelves"},
             "anti_note": "twin: the block melts as fast as the crushed ice"}
    where = "left" if crushed_left else "right"
    case = E.studio_case(
        "wmle", "crushed_vs_intact_ice", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera films in time-lapse two identical square glass jars with dark corner posts side by "
                "side, each with the same shallow layer of cold water and a perforated shelf across it high above the "
                f"water. At the start equal masses of ice are laid on the shelves: on the {where} one a heap of "
                "small crushed pieces, on the other one single block. Both melt at room temperature; the meltwater "
                "drips through the shelves and the water in each jar rises. Nothing else is added and the camera "
                "does not move."),
        assumptions=["equal ice masses, same temperature", "identical vessels and surroundings",
                     "meltwater stays in its vessel", "fixed side view, uniform time"],
        criteria=["P28: M1 of WMLE appendix B.6"],
        quantities={"max_lead_px": float(np.max(f_c - f_b) * rise * ppm), "s1": 1.0, "anti_s1": 0.0})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)
