"""Studio scenes of the WMLE thermal tasks (P24–P28), drawn in 3-D by MuJoCo.

- P24 ``freezing_expansion``: a square glass jar with dark corner posts on an opaque base, filled part way
  with dyed water that freezes into white, cloudy ice. Motion: **kinematic**, the task's closed form (frozen
  share a smoothstep from ``t0`` to ``t1``; the column's top at ``h_w (1 + (ρ_w/ρ_i − 1) f)``): the sample is a
  box on a slide joint whose top is the surface (its lower part hidden by the base), its material mixed from
  the water's colour to the ice's by the frozen share (:class:`~._wmle_p24_p40.Scaled`). The camera is level with
  the surface. Twin: the column keeps the water's height while it freezes.
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
    from lawful.suites.wmle.p24_freezing_expansion import EXPANSION, WATER_TINTS

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
