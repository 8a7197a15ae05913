"""Studio scenes of the WMLE thermal tasks P24–P25 (P26–P28: :mod:`.scenes_wmle_p26_p28`), drawn in 3-D by MuJoCo.

- P24 ``freezing_expansion``: a square glass jar with dark corner posts on an opaque base, filled part way
  with dyed water that freezes into white, cloudy ice. Motion: **kinematic**, the task's closed form (frozen
  share a smoothstep from ``t0`` to ``t1``; the column's top at ``h_w (1 + (ρ_w/ρ_i − 1) f)``): the sample is a
  box on a slide joint whose top is the surface (its lower part hidden by the base), its material mixed from
  the water's colour to the ice's by the frozen share (:class:`~._wmle_p24_p40.Scaled`). The camera is level with
  the surface. Twin: the column keeps the water's height while it freezes.
- P25 ``ice_melt_fresh``: a square glass jar with dark corner posts in front of a pale board, dyed fresh water and
  a floating cube of freshwater ice (a grey board behind: white ice stands out). Motion: **kinematic**, the task's closed form (the cube's volume falls
  linearly to nothing, :func:`lawful.world.liquids.melt_side`; it floats with 0.917 of its side under water): the
  cube is a mesh scaled about the point of its waterline (:class:`~._wmle_p24_p40.Scaled`), the water a box on a
  slide joint whose top is the level (unchanged). The camera is level with the waterline. Twin: the level rises in
  step with the melted volume, by ``anti_rise`` (3–5 % of the jar's inside height) in all.
"""

from __future__ import annotations

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
WOOD = (150, 108, 66)


@scene("wmle", "freezing_expansion")
def freezing_expansion(index: int, seed: int) -> StyledCase:
    from lawful.world.scenes.ice import EXPANSION, WATER_TINTS

    label = 24
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    w = float(rng.uniform(0.09, 0.13))                    # inner width (x)
    dp = float(rng.uniform(0.07, 0.09))                   # inner depth (y)
    z_b = 0.03                                            # inner bottom: top of the opaque base
    h_w = float(rng.uniform(0.12, 0.15))
    z_top = z_b + h_w * EXPANSION + 0.045
    t0, t1 = float(rng.uniform(0.9, 1.1)), float(rng.uniform(3.2, 3.6))
    duration = 5.0
    water = tuple(int(v) for v in np.clip(np.asarray(WATER_TINTS[int(rng.integers(len(WATER_TINTS)))])
                                          + rng.uniform(-10, 10, 3), 0, 255))
    post = 0.007

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.5)))
    st.fixed(E.box(0.5 * w + post + 0.01, 0.5 * dp + post + 0.01, 0.5 * z_b), (0, 0, 0.5 * z_b), WOOD, 0.25)
    gmat = K.glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.08, 0.14)))
    st.static.append(f'<geom name="jar" type="box" size="{0.5 * w + 0.002:.5g} {0.5 * dp + 0.002:.5g} '
                     f'{0.5 * (z_top - z_b):.5g}" pos="0 0 {0.5 * (z_top + z_b):.5g}" material="{gmat}" '
                     'contype="0" conaffinity="0"/>')
    wall = tuple(int(v) for v in np.clip(np.asarray(lq.WALL) + rng.uniform(-8, 8, 3), 0, 255))
    for sx in (-1, 1):  # the jar's dark corner posts (its walls, as the camera sees them)
        for sy in (-1, 1):
            st.fixed(E.box(0.5 * post, 0.5 * post, 0.5 * (z_top - z_b)),
                     (sx * (0.5 * w + 0.5 * post), sy * (0.5 * dp + 0.5 * post), 0.5 * (z_top + z_b)), wall, 0.4,
                     **E.NO_CONTACT)
    ice = np.asarray(lq.ICE, float) / 255
    smat = K.glass(st, water, 0.6, specular=0.6)
    span = 0.4
    sb = K.slide_body(st, "sample", (0.0, 0.0, 0.0))
    sb.parts.append(f'<geom name="sample_g" type="box" size="{0.5 * w - 0.0005:.5g} {0.5 * dp - 0.0005:.5g} '
                    f'{0.5 * span:.5g}" pos="0 0 {-0.5 * span:.5g}" material="{smat}" contype="0" conaffinity="0"/>')
    P.parameter(st, "frozen")
    z_mid = z_b + h_w * 0.5 * (1 + EXPANSION)
    half = max(z_top + 0.03 - z_mid, z_mid + 0.01)
    cam = C.frame_camera(st, rng, variant, (-0.5 * w - 0.08, z_mid - half), (0.5 * w + 0.08, z_mid + half),
                         max_tilt_deg=0.0)
    pos, right, up, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z_mid]), right, up, fov)  # level with the surface
    cam["pos"][2] = cam["lookat"][2] = round(z_mid, 4)
    c_water = (*(np.asarray(water) / 255), 0.6)
    world = P.Scaled.of(st, tints=[(smat, "frozen_j", c_water, (*ice, 0.97))])
    qs, qf = K.qadr(world, "sample_j"), K.qadr(world, "frozen_j")

    def qpos_of(law: str):
        grow = EXPANSION - 1.0 if law == "true" else 0.0

        def g(t):
            q = np.zeros(world.model.nq)
            f = float(mt.freeze_fraction(t, t0, t1))
            q[qs] = z_b + h_w * (1 + grow * f)
            q[qf] = f
            return q
        return g

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    px = lambda x, z, y=-0.5 * dp: world.project((x, y, z))  # noqa: E731  (the jar's front face)
    xl, xr = px(-0.5 * w, z_mid)[0], px(0.5 * w, z_mid)[0]
    y_b = px(0, z_b)[1]
    y_s = px(0, z_b + h_w)[1]
    y_i = px(0, z_b + h_w * EXPANSION)[1]
    m = 0.12 * (xr - xl)
    band = [xl + m, y_i - 0.25 * (y_b - y_s), xr - m, y_s + 0.25 * (y_b - y_s)]
    wl, _ = px(-0.5 * w - post - 0.004, z_b)
    wr, _ = px(0.5 * w + post + 0.004, z_b)
    strip = [max(wl - 0.3 * (xr - xl), 2.0), px(0, z_b + 0.45 * h_w)[1], min(wr + 0.3 * (xr - xl), W - 3.0),
             px(0, z_b + 0.25 * h_w)[1]]
    pts = [px(sx * (0.5 * w + 0.5 * post), z_b + 0.35 * h_w, -0.5 * dp - 0.5 * post) for sx in (-1, 1)]
    known = {"surface_band": [round(v, 2) for v in band], "bottom_y": round(y_b, 3),
             "wall_strip": [round(v, 2) for v in strip], "wall": list(K.measured_rgb(first, pts)),
             "cavity": [round(xl, 2), round(px(0, z_top)[1], 2), round(xr, 2), round(y_b, 2)],
             "h_water_px": round(y_b - y_s, 3), "freeze_s": [t0, t1], "water": list(water),
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: smoothstep freezing, column top h_w (1 + 0.0905 f), colour water→ice"},
             "anti_note": "twin: the ice keeps the water's height"}
    case = E.studio_case(
        "wmle", "freezing_expansion", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera, level with the water's surface, films in time-lapse a square, straight-walled glass "
                "jar with dark corner posts standing on a wooden base, filled part way with water. The water freezes "
                "solid from a clear liquid into white, cloudy ice; nothing is added or taken away, the jar keeps its "
                "shape, and the camera does not move."),
        assumptions=["mass conserved: nothing added, spilled or evaporated", "straight vessel, fixed cross-section",
                     "freezing completes within the clip", "fixed side view"],
        criteria=["P24: M1/M2 of WMLE appendix B.6"],
        quantities={"H_water_px": y_b - y_s, "H_ice_px": y_b - y_i, "e1": 0.0, "anti_e1": 1.0 - EXPANSION,
                    "W_px": xr - xl})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P25


def _posts(st: E.Stage, w: float, dp: float, post: float, z0: float, z1: float, rgb) -> None:
    """A square jar's four dark corner posts (its walls, as the camera sees them), ``z0..z1``."""
    for sx in (-1, 1):
        for sy in (-1, 1):
            st.fixed(E.box(0.5 * post, 0.5 * post, 0.5 * (z1 - z0)),
                     (sx * (0.5 * w + 0.5 * post), sy * (0.5 * dp + 0.5 * post), 0.5 * (z0 + z1)), rgb, 0.4,
                     **E.NO_CONTACT)


@scene("wmle", "ice_melt_fresh")
def ice_melt_fresh(index: int, seed: int) -> StyledCase:
    from lawful.world.scenes.ice import DRAFT

    label = 25
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    w, dp, post = float(rng.uniform(0.2, 0.24)), float(rng.uniform(0.1, 0.12)), 0.008
    z_b, z_top = 0.03, 0.03 + float(rng.uniform(0.2, 0.22))
    z_w = z_b + float(rng.uniform(0.45, 0.55)) * (z_top - z_b)
    side0 = float(rng.uniform(0.055, 0.065))
    xc = float(rng.uniform(-0.01, 0.01))
    t_s, t_e = float(rng.uniform(0.5, 0.7)), float(rng.uniform(4.3, 4.7))
    rise = float(rng.uniform(0.03, 0.05)) * (z_top - z_b)
    duration = 6.0
    tint = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
    water = tuple(int(0.45 * c + 0.55 * 235) for c in tint)

    st.floor()
    st.backdrop(y=float(rng.uniform(0.35, 0.55)))
    P.board(st, rng, -0.5 * w - 0.08, 0.5 * w + 0.08, 0.0, z_top + 0.06, y=0.5 * dp + 0.04, grey=(125, 155))  # white ice and dark posts stand out
    st.fixed(E.box(0.5 * w + post + 0.01, 0.5 * dp + post + 0.01, 0.5 * z_b), (0, 0, 0.5 * z_b), WOOD, 0.25)
    gmat = K.glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.06, 0.1)), specular=0.3)
    st.static.append(f'<geom name="jar" type="box" size="{0.5 * w + 0.002:.5g} {0.5 * dp + 0.002:.5g} '
                     f'{0.5 * (z_top - z_b):.5g}" pos="0 0 {0.5 * (z_top + z_b):.5g}" material="{gmat}" '
                     'contype="0" conaffinity="0"/>')
    wall = tuple(int(v) for v in np.clip(np.asarray(lq.WALL) + rng.uniform(-8, 8, 3), 0, 255))
    _posts(st, w, dp, post, z_b, z_top, wall)
    wmat = K.glass(st, water, 0.5, specular=0.4)
    span = 0.4
    wb = K.slide_body(st, "water", (0.0, 0.0, 0.0))
    wb.parts.append(f'<geom name="water_g" type="box" size="{0.5 * w - 0.0005:.5g} {0.5 * dp - 0.0005:.5g} '
                    f'{0.5 * span:.5g}" pos="0 0 {-0.5 * span:.5g}" material="{wmat}" contype="0" conaffinity="0"/>')
    ice = tuple(int(v) for v in rng.uniform([222, 230, 238], [238, 245, 252]))
    imat = K.glass(st, ice, 1.0, specular=0.7, emission=0.3)
    h = 0.5 * side0
    cube = [(xc + sx * h, sy * h, z_w + (1 - DRAFT) * side0 - (0 if sz > 0 else side0))
            for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    K.mesh(st, "ice", cube)
    ib = K.slide_body(st, "ice_b", (0.0, 0.0, 0.0))  # rides on the level (the twin's rises)
    ib.parts.append(f'<geom name="ice_g" type="mesh" mesh="ice" material="{imat}" contype="0" conaffinity="0"/>')
    P.parameter(st, "side")
    half = max(z_top + 0.04 - z_w, z_w + 0.01)
    cam = C.frame_camera(st, rng, variant, (-0.5 * w - 0.1, z_w - half), (0.5 * w + 0.1, z_w + half), max_tilt_deg=0.0)
    pos, right, up, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z_w]), right, up, fov)  # level with the waterline
    cam["pos"][2] = cam["lookat"][2] = round(z_w, 4)
    world = P.Scaled.of(st, morphs=[("ice_g", (xc, 0.0, z_w), "side_j", side0)])
    qw, qi, qs = K.qadr(world, "water_j"), K.qadr(world, "ice_b_j"), K.qadr(world, "side_j")

    def qpos_of(law: str):
        def g(t):
            q = np.zeros(world.model.nq)
            s = float(lq.melt_side(t, side0, t_s, t_e))
            up_ = rise * (1 - (s / side0) ** 3) if law == "anti" else 0.0
            q[qw], q[qi], q[qs] = z_w + up_, up_, s
            return q
        return g

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    px = lambda x, z, y=-0.5 * dp: world.project((x, y, z))  # noqa: E731  (the jar's front face)
    xl, xr = px(-0.5 * w, z_w)[0], px(0.5 * w, z_w)[0]
    y_rim, y_b = px(0, z_top)[1], px(0, z_b)[1]
    il, ir = px(xc - 0.5 * side0, z_w, -0.5 * side0)[0], px(xc + 0.5 * side0, z_w, -0.5 * side0)[0]
    m = 0.06 * (xr - xl)
    bands = {"water_left": [xl + m, y_rim + 4, il - m, y_b - 4], "water_right": [ir + m, y_rim + 4, xr - m, y_b - 4]}
    _, i_top = px(xc, z_w + (1 - DRAFT) * side0, -0.5 * side0)
    _, i_bot = px(xc, z_w - DRAFT * side0, -0.5 * side0)
    ice_box = [il - 6, i_top - 0.4 * (i_bot - i_top), ir + 6, i_bot + 4]
    wl = px(-0.5 * w - post - 0.004, z_b)[0]
    wr = px(0.5 * w + post + 0.004, z_b)[0]
    y_strip = px(0, z_b + 0.3 * (z_w - z_b))[1]
    walls = [wl - 0.08 * (xr - xl), y_strip - 8, wr + 0.08 * (xr - xl), y_strip + 8]
    wpts = [px(sx * (0.5 * w + 0.5 * post), z_b + 0.3 * (z_w - z_b), -0.5 * dp - 0.5 * post) for sx in (-1, 1)]
    ipts = [px(xc + dx * side0, z_w + 0.5 * (1 - DRAFT) * side0, -0.5 * side0) for dx in (-0.2, 0, 0.2)]
    r2 = lambda b: [round(float(v), 2) for v in b]  # noqa: E731
    known = {"vessel": r2([xl, y_rim, xr, y_b]), "bands": {k: r2(b) for k, b in bands.items()}, "ice": r2(ice_box),
             "ice_color": list(K.measured_rgb(first, ipts)), "walls": r2(walls),
             "wall_color": list(K.measured_rgb(first, wpts)), "water": list(water), "melt_start_s": t_s,
             "melt_end_s": t_e, "anti_rise_px": round(rise * world.px_per_m((0, -0.5 * dp, z_w)), 3),
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: cube volume falls linearly, floats at 0.917 of its side"},
             "anti_note": "twin: the level rises by anti_rise_px as the ice melts"}
    if any(b[2] - b[0] < 4 for b in bands.values()):
        raise ValueError(f"ice_melt_fresh scene {index}/{seed}: a water band is too narrow ({bands})")
    case = E.studio_case(
        "wmle", "ice_melt_fresh", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[], known=known,
        variant=f"studio-{variant.name}",
        prompt=("A fixed camera level with the water films in time-lapse a square, straight-sided glass jar with dark "
                "corner posts, half full of fresh water, with a cube of freshwater ice floating in the middle. The "
                "ice slowly melts until nothing of it is left; nothing is poured in or taken out and the water does "
                "not evaporate. The camera does not move."),
        assumptions=["freshwater ice floating in fresh water", "no water added, spilled or evaporated",
                     "the glass keeps its shape and temperature changes of density are negligible", "fixed side view"],
        criteria=["P25: M1/M2 of WMLE appendix B.6"],
        quantities={"e1": 0.0, "e2": 0.0, "anti_e1": known["anti_rise_px"] / (y_b - y_rim)})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)
