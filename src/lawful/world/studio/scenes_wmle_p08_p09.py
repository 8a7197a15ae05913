"""Studio scenes of WMLE P8–P9 (rolling), simulated by MuJoCo.

- P8 ``solid_sphere_rolling``: a dark ball with a light stripe (pole to rim, facing the camera) rolls
  from rest down a board onto the floor; twin: low friction, it skids (0.55 rad turned per radian).
- P9 ``sphere_vs_ring``: a ball and a hoop (thin-walled tube, stated inertia m R²) roll down two ramps
  that fall away from each other; twin: the hoop's inertia makes it accelerate like the ball × f.

Each builder's docstring says how its law and twin are made. Every scene faces the plane of motion
(yaw and pitch within 0.6°; P9's exactly), so path angles and length ratios in the image are the 3-D
ones; ``known`` image values are projected from the 3-D geometry. Variants by index: see
``_wmle_p08_p15.VARIANTS``.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

G = 9.81
FPS = 24.0
WOOD = (176, 142, 104)


def _ramp_board(st: E.Stage, corner: np.ndarray, w: np.ndarray, n: np.ndarray, length: float, thick: float,
                theta_deg: float, side: int, friction: str, name: str) -> None:
    """A board whose top surface runs from ``corner`` along ``w`` (up the slope) for ``length``."""
    st.fixed(E.box(length / 2, 0.3, thick / 2), pos=tuple(corner + length / 2 * w - thick / 2 * n), rgb=WOOD,
             specular=0.15, euler=(0.0, side * theta_deg, 0.0), friction=friction, name=name)


@scene("wmle", "solid_sphere_rolling")
def build_solid_sphere_rolling(index: int, seed: int) -> StyledCase:
    """P8: a marked solid ball released on an incline rolls onto the level floor.

    Law: friction 0.9 on ball, ramp and floor, so it rolls without slipping (MuJoCo's contact solves
    it). Twin: the ball skids — friction ``0.55 tan θ / 3.05`` on the incline (spin ``ω r = 0.55 v``
    while sliding with slip) and none on the floor, the task's 0.55 rad of turning per radian rolled.
    """
    label = 8
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    th_deg = float(rng.uniform(12.0, 16.0))
    th = math.radians(th_deg)
    side = int(rng.choice([-1, 1]))  # the ball rolls towards +x (side +1) or -x
    r = float(rng.uniform(0.11, 0.14))
    hold = float(rng.uniform(0.15, 0.3))
    t1 = float(rng.uniform(1.0, 1.2))  # time to the corner (law)
    a_law = G * math.sin(th) / 1.4
    Lc = 0.5 * a_law * t1**2  # contact travel along the incline
    t_floor = float(rng.uniform(0.5, 0.7))
    duration = round(hold + t1 + t_floor, 2)
    mu_anti = 0.55 * math.tan(th) / 3.05
    a_anti = G * (math.sin(th) - mu_anti * math.cos(th))
    t1a = math.sqrt(2 * Lc / a_anti)
    run = max(a_law * t1 * t_floor, a_anti * t1a * max(0.0, duration - hold - t1a))  # floor travel (m)
    w = np.array([-side * math.cos(th), 0.0, math.sin(th)])  # up the incline, away from the corner
    n = np.array([side * math.sin(th), 0.0, math.cos(th)])
    corner = np.zeros(3)
    start = corner + Lc * w + r * n
    # dark (a light stripe shows on it); no dark yellow: olive is too close to greenish or brown floors
    body_rgb = C.object_rgbs(rng, 1, avoid=C.scene_hues(st.look), value=(0.5, 0.65),
                             hues=(0.0, 0.47, 0.58, 0.72, 0.86))[0]
    stripe_rgb = (240, 236, 222)
    st.floor(friction="0.9 0.005 0.0001")
    st.backdrop(y=float(rng.uniform(0.5, 0.9)))
    _ramp_board(st, corner, w, n, Lc + 2.2 * r + 0.15, 0.05, th_deg, side, "0.9 0.005 0.0001", "ramp")
    b = st.body("ball", pos=tuple(start), joint="free")
    C.marked_ball(b, r, body_rgb, stripe_rgb, "ball")
    top = corner + (Lc + 2.2 * r + 0.15) * w
    xs = [top[0], corner[0] + side * (run + r)]
    lo, hi = [min(xs) - 0.08, -0.03], [max(xs) + 0.08, top[2] + 2 * r + 0.06]
    if variant.distractor:  # a look-alike ball resting beyond the ramp's top
        dx = top[0] - side * 0.35
        st.distractor(E.sphere(r * 0.8), pos=(dx, 0.15, r * 0.8), near=body_rgb)
        lo[0], hi[0] = min(lo[0], dx - r), max(hi[0], dx + r)
    cam = C.frame_camera(st, rng, variant, lo, hi)
    world = st.build()
    m = world.model
    q0 = m.jnt_qposadr[m.body_jntadr[world.id("body", "ball")]]

    def hold_hook(w_, d):
        if d.time < hold - 1e-9:  # held still until the release
            d.qvel[:] = 0.0
            d.qpos[q0:q0 + 3] = start

    recs: dict = {}

    def rec(law: str):
        if law not in recs:
            saved = m.geom_friction.copy()
            if law == "anti":
                m.geom_friction[:, 0] = 0.0  # a contact takes the larger of its two geoms' frictions:
                m.geom_friction[world.id("geom", "ramp"), 0] = mu_anti  # ball-ramp mu_anti, ball-floor 0
            try:
                recs[law] = world.simulate(duration, FPS, hold_hook)
            finally:
                m.geom_friction[:] = saved
        return recs[law]

    first = next(iter(world.render(rec("true"))))
    masks = world.masks(rec("true"))
    r_px = world.px_per_m(tuple(start)) * r
    obj = world.object_spec("ball", "sphere", first, masks, radius_px=round(r_px, 3))
    t = rec("true").times[:, rec("true").times.shape[1] // 2]
    xyz = rec("true").body_xyz(world, "ball")
    track = [(round(float(a), 5), *(round(float(v), 3) for v in world.project(q))) for a, q in zip(t, xyz)]
    known = {"g": G, "incline_deg": round(th_deg, 4), "radius_px": round(r_px, 3),
             "ground_y": round(float(world.project(tuple(corner))[1]), 3),
             "corner": [round(float(v), 3) for v in world.project(tuple(corner))], "hold_s": round(hold, 4),
             "px_per_m": round(world.px_per_m(tuple(start)), 4), "radius_m": round(r, 4),
             "studio": {"variant": variant.name, "camera": cam},
             "anti_note": "twin: low friction on the incline and none on the floor, so the ball skids and turns "
                          "0.55 rad per radian rolled"}
    prompt = ("A fixed camera looks at a gentle wooden ramp that runs into a level floor. A solid ball with a light "
              "stripe painted from the centre of its visible face to its rim rests at the top of the ramp. It is let "
              "go without a push and rolls without slipping down the ramp and on along the floor, the stripe turning "
              "with it. The camera does not move and time runs at a steady rate.")
    case = E.studio_case("wmle", "solid_sphere_rolling", index, seed, prompt=prompt, duration=duration, fps=FPS,
                         width=W, height=H, objects=[obj], known=known,
                         assumptions=["solid uniform sphere", "released from rest", "rolls without slipping",
                                      "ball keeps contact with the surface", "fixed camera, uniform time"],
                         criteria=["P8: M1 centre displacement per radian = r (q, a = 0.25)",
                                   "P8: M2 v = omega r (q, a = 0.35)"],
                         variant=f"studio-{variant.name}", quantities={"radius_px": r_px, "e1": 0.0, "e2": 0.0})
    case.truth.tracks = {"ball": track}
    case.truth.events = {"release": hold, "corner": hold + t1}
    return StyledCase(case, first, lambda law: world.render(rec(law)))


# ----------------------------------------------------------------------------- P9


@scene("wmle", "sphere_vs_ring")
def build_sphere_vs_ring(index: int, seed: int) -> StyledCase:
    """P9: a solid ball and a thin hoop of equal outer radius roll from rest at the same height down two
    identical ramps that fall away from each other (a roof shape) to stop blocks.

    Law: rolling without slipping (friction 0.9); MuJoCo integrates ``a = g sin θ / (1 + k)`` with the
    sphere's inertia from its geom (k = 2/5) and the hoop's stated inertia (k = 1). Twin: the hoop's
    inertia is ``((1 + 2/5) / f - 1) m R²`` with ``f = anti_accel_factor`` (0.92–1.08), so it accelerates
    ``f`` times as fast as the ball, as the task's own twin does.

    The camera faces the ramps' plane exactly and the hoop's rim lies in it (:func:`_wmle_p08_p15.hoop`):
    M1 compares image distances of two lanes that run to opposite sides of the frame, and a tilt within
    the other scenes' 0.6° scales them differently (seed 1000, yaw 0.53°, pitch 0.43°: -0.25 % to
    +0.5 % along the lanes, image r_t -0.25 % from the 3-D one), where M1 loses a point per 0.1 %.
    """
    label = 9
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    th_deg = float(rng.uniform(20.0, 24.0))
    th = math.radians(th_deg)
    R = float(rng.uniform(0.12, 0.15))
    duration = 2.0
    finish = float(rng.uniform(0.8, 0.88))
    a_ring = G * math.sin(th) / 2.0
    travel = 0.5 * a_ring * (finish * duration) ** 2  # centre travel until the hoop meets its stop block
    anti_f = float(rng.uniform(0.92, 1.08))
    k_anti = 1.4 / anti_f - 1.0
    gap = float(rng.uniform(0.04, 0.12))  # between the two start points (m), either side of x = 0
    base = float(rng.uniform(0.08, 0.2))  # height of the ramps' lower ends above the floor
    length = travel + 2 * R + 0.1
    top_z = base + length * math.sin(th)
    sphere_left = bool(rng.integers(2))
    cols = C.object_rgbs(rng, 2, avoid=C.scene_hues(st.look))
    st.floor()
    st.backdrop(y=float(rng.uniform(0.5, 0.9)))
    lanes, starts, downs = {}, {}, {}
    for lane, side in ((0, -1), (1, 1)):  # lane 0 falls to the left, lane 1 to the right
        d = np.array([side * math.cos(th), 0.0, -math.sin(th)])  # down the slope
        nrm = np.array([side * math.sin(th), 0.0, math.cos(th)])
        apex = np.array([side * gap / 2, 0.0, top_z])
        board_c = apex + length / 2 * d - 0.025 * nrm
        st.fixed(E.box(length / 2, 0.3, 0.025), pos=tuple(board_c), rgb=WOOD, specular=0.15,
                 euler=(0.0, side * th_deg, 0.0), friction="0.9 0.005 0.0001", name=f"ramp{lane}")
        leg_x = apex[0] + side * 0.04
        st.fixed(E.box(0.03, 0.25, top_z / 2 - 0.02), pos=(leg_x, 0.05, top_z / 2 - 0.02), rgb=(120, 100, 80),
                 specular=0.1, name=f"leg{lane}")
        stop_c = apex + (R + 0.05 + travel + R + 0.015) * d + 0.6 * R * nrm
        st.fixed(E.box(0.015, 0.3, 0.6 * R), pos=tuple(stop_c), rgb=(90, 92, 98), specular=0.6,
                 euler=(0.0, side * th_deg, 0.0), name=f"stop{lane}")
        starts[lane] = apex + (R + 0.05) * d + R * nrm
        downs[lane] = d
        lanes[lane] = side
    lane_of = {"sphere": 0 if sphere_left else 1, "ring": 1 if sphere_left else 0}
    bs = st.body("sphere", pos=tuple(starts[lane_of["sphere"]]), joint="free")
    bs.geom(E.sphere(R), rgb=cols[0], obj="sphere", specular=0.45, density=1000, friction="0.9 0.005 0.0001")
    spot = 0.55 * R
    ang = float(rng.uniform(0, 2 * math.pi))
    bs.geom(E.sphere(0.3 * R), rgb=tuple(int(c * 0.3) for c in cols[0]),
            pos=(spot * math.cos(ang), -math.sqrt(R * R - spot * spot) + 0.12 * R, spot * math.sin(ang)),
            specular=0.2, density=1, **E.NO_CONTACT)
    br = st.body("ring", pos=tuple(starts[lane_of["ring"]]), joint="free")
    C.hoop(br, R, cols[1], (240, 236, 222), "ring", mass=1000 * 4 / 3 * math.pi * R**3, k=1.0)
    ends = [starts[i] + (travel + 0.1) * downs[i] for i in (0, 1)]
    lo = [min(e[0] for e in ends) - R - 0.1, -0.03]
    hi = [max(e[0] for e in ends) + R + 0.1, top_z + 0.12]
    if variant.distractor:  # a look-alike ball on the floor under the ring's ramp
        lx = 0.5 * (starts[lane_of["ring"]][0] + ends[lane_of["ring"]][0])
        st.distractor(E.sphere(0.8 * R), pos=(lx, 0.2, 0.8 * R), near=cols[0])
    cam = C.frame_camera(st, rng, variant, lo, hi, max_tilt_deg=0.0)
    world = st.build()
    m = world.model
    rid = world.id("body", "ring")
    recs: dict = {}

    def set_inertia(value: np.ndarray) -> None:
        import mujoco

        m.body_inertia[rid] = value
        mujoco.mj_setConst(m, mujoco.MjData(m))  # MuJoCo 4 keeps derived inertia constants: recompute them

    def rec(law: str):
        if law not in recs:
            saved = m.body_inertia[rid].copy()
            if law == "anti":
                set_inertia(saved * k_anti)
            try:
                recs[law] = world.simulate(duration, FPS)
            finally:
                if law == "anti":
                    set_inertia(saved)
        return recs[law]

    first = next(iter(world.render(rec("true"))))
    masks = world.masks(rec("true"))
    r_px = world.px_per_m(tuple(starts[0])) * R
    objects = [world.object_spec("sphere", "sphere", first, masks, radius_px=round(r_px, 3)),
               world.object_spec("ring", "hollow_cylinder", first, masks, radius_px=round(r_px, 3))]
    t = rec("true").times[:, rec("true").times.shape[1] // 2]
    tracks = {}
    for b in ("sphere", "ring"):
        xyz = rec("true").body_xyz(world, b)
        tracks[b] = [(round(float(a), 5), *(round(float(v), 3) for v in world.project(q))) for a, q in zip(t, xyz)]
    from lawful.world.physics import TIME_RATIO

    known = {"g": G, "theta_deg": round(th_deg, 4), "radius_px": round(r_px, 3), "time_ratio": TIME_RATIO,
             "ground_y": round(float(world.project((0.0, 0.0, 0.0))[1]), 3),
             "lanes": {b: ("left" if lanes[lane_of[b]] < 0 else "right") for b in lane_of},
             "anti_accel_factor": round(anti_f, 5), "anti_ring_inertia": round(k_anti, 6),
             "studio": {"variant": variant.name, "camera": cam},
             "anti_note": "twin: the hoop's inertia is anti_ring_inertia m R^2, so it accelerates anti_accel_factor "
                          "times as fast as the ball"}
    where = "left" if sphere_left else "right"
    other = "right" if sphere_left else "left"
    prompt = (f"A fixed camera looks at two identical wooden ramps that fall away from each other, each at about "
              f"{th_deg:.0f} degrees, with a stop block at each lower end. At the top of the {where} ramp rests a "
              f"solid ball with a dark spot on it; at the top of the {other} ramp, at the same height, rests a thin "
              "hoop of the same outer radius (a short thin-walled tube seen end-on) with a light mark on its rim. "
              "At the start both are let go together from rest and roll down without slipping until they reach the "
              "stop blocks. The camera does not move and time runs at a steady rate.")
    case = E.studio_case("wmle", "sphere_vs_ring", index, seed, prompt=prompt, duration=duration, fps=FPS,
                         width=W, height=H, objects=objects, known=known,
                         assumptions=["released together from rest at the same height", "rolling without slipping",
                                      "equal outer radii", "identical ramps", "fixed camera, uniform time"],
                         criteria=["P9: M1 median ring/sphere travel-time ratio = sqrt(10/7) (q, a = 0.10)"],
                         variant=f"studio-{variant.name}",
                         quantities={"r_t": TIME_RATIO, "e1": 0.0, "anti_r_t": 1 / math.sqrt(anti_f)})
    case.truth.tracks = tracks
    case.truth.events = {"release": 0.0}
    return StyledCase(case, first, lambda law: world.render(rec(law)))


# ----------------------------------------------------------------------------- P10
