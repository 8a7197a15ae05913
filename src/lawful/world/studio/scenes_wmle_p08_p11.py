"""Studio scenes of WMLE P8–P11 (rolling, friction, rigid-body rotation), simulated by MuJoCo.

- P8 ``solid_sphere_rolling``: a dark ball with a light stripe (pole to rim, facing the camera) rolls
  from rest down a board onto the floor; twin: low friction, it skids (0.55 rad turned per radian).
- P9 ``sphere_vs_ring``: a ball and a hoop (thin-walled tube, stated inertia m R²) roll down two ramps
  that fall away from each other; twin: the hoop's inertia makes it accelerate like the ball × f.
- P10 ``edge_pivot_rotation``: a kinematic rod tips a tall spotted block over its lower right edge;
  twin: the mat under the block slides as it turns, carrying the edge.
- P11 ``rough_incline_round_trip``: a block rests against a stop post at the foot of a long ramp
  (27–33°, rising left or right), is launched up (velocity set at the launch instant), slides up,
  stops and slides back; MuJoCo's Coulomb friction (μ = 0.20) gives ``a_up / a_down = R*``. Twin: while
  it slides down, a force along the slope makes ``a_down = a_up / anti_ratio`` (0.9–1.15).

Each builder's docstring says how its law and twin are made. Every scene faces the plane of motion
(yaw and pitch within 0.6°), so path angles and length ratios in the image are the 3-D ones; ``known``
image values are projected from the 3-D geometry. Variants by index: see ``_wmle_p08_p15.VARIANTS``.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.suites.wmle.p11_rough_incline_round_trip import MU, friction_ratio
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

G = 9.81
FPS = 24.0
WOOD = (176, 142, 104)


def _slope_frame(theta: float, side: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors up the slope and out of it (world x–z plane) for a ramp rising towards ``side`` (±1 in x)."""
    return (np.array([side * math.cos(theta), 0.0, math.sin(theta)]),
            np.array([-side * math.sin(theta), 0.0, math.cos(theta)]))


@scene("wmle", "rough_incline_round_trip")
def build_rough_incline(index: int, seed: int) -> StyledCase:
    label = 11
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    theta = math.radians(float(rng.uniform(27.0, 33.0)))
    side = int(rng.choice([-1, 1]))
    u, n = _slope_frame(theta, side)
    euler = (0.0, -side * math.degrees(theta), 0.0)
    hx, hy, hz = float(rng.uniform(0.09, 0.12)), 0.07, float(rng.uniform(0.05, 0.065))
    travel = float(rng.uniform(1.5, 2.1))  # centre travel up the slope after the push (m)
    a_up = G * (math.sin(theta) + MU * math.cos(theta))
    a_nat = G * (math.sin(theta) - MU * math.cos(theta))
    v0 = math.sqrt(2 * a_up * travel)
    launch = float(rng.uniform(0.25, 0.4))
    post_s, post_half = 0.04, 0.012
    s0 = post_s + 2 * post_half + hx  # block centre's distance up the slope from the foot, resting on the post
    length = s0 + travel + hx + float(rng.uniform(0.25, 0.45))  # ramp board length
    anti = float(rng.uniform(0.9, 1.15))
    t_up, t_down = v0 / a_up, math.sqrt(2 * travel / a_nat)
    duration = math.ceil((launch + t_up + t_down + 0.5) * 4) / 4
    foot = np.array([0.0, 0.0, 0.0])
    color = C.object_rgbs(rng, 1, avoid=C.scene_hues(st.look))[0]
    board_t = 0.06
    st.floor()
    st.backdrop(y=float(rng.uniform(0.45, 0.8)))
    st.fixed(E.box(length / 2, 0.3, board_t / 2), pos=tuple(foot + length / 2 * u - board_t / 2 * n), rgb=WOOD,
             specular=0.15, euler=euler, friction=f"{MU} 0.005 0.0001", name="ramp")
    top = foot + length * u
    st.fixed(E.box(0.03, 0.25, top[2] / 2), pos=(top[0] - side * 0.05, 0.0, top[2] / 2), rgb=(120, 100, 80),
             specular=0.1, name="leg")
    post_h = 0.7 * 2 * hz
    st.fixed(E.box(post_half, 0.3, post_h / 2), pos=tuple(foot + (post_s + post_half) * u + post_h / 2 * n),
             rgb=(90, 92, 98), specular=0.6, euler=euler, friction=f"{MU} 0.005 0.0001", name="post")
    c0 = foot + s0 * u + (hz + 0.0005) * n
    b = st.body("block", pos=tuple(c0), joint="free", euler=euler)
    b.geom(E.box(hx, hy, hz), rgb=color, obj="block", specular=0.35, density=700, friction=f"{MU} 0.005 0.0001")
    xs = [foot[0], top[0]]
    lo, hi = [min(xs) - 0.12, -0.04], [max(xs) + 0.12, top[2] + 0.12]
    if variant.distractor:  # a look-alike box on the floor beyond the ramp's foot
        dx = foot[0] - side * 0.3
        st.distractor(E.box(0.08, 0.06, 0.05), pos=(dx, 0.1, 0.05), near=color)
        lo[0], hi[0] = min(lo[0], dx - 0.12), max(hi[0], dx + 0.12)
    cam = C.frame_camera(st, rng, variant, lo, hi)
    world = st.build()
    bid = world.id("body", "block")
    mass = float(world.model.body_subtreemass[bid])

    def hook_for(law: str):
        state = {"launched": False}

        def hook(w, d):
            if not state["launched"] and d.time >= launch - 1e-9:
                d.qvel[0:3] = v0 * u
                d.qvel[3:6] = 0.0
                state["launched"] = True
            d.xfrc_applied[bid, :3] = 0.0
            if law == "anti" and state["launched"]:
                v_up = float(d.qvel[0:3] @ u)
                s = float((d.qpos[0:3] - foot) @ u)
                if v_up < 0 and s > s0 + 0.005:  # sliding down, not yet at the post
                    d.xfrc_applied[bid, :3] = -mass * (a_up / anti - a_nat) * u
        return hook

    recs = {law: None for law in ("true", "anti")}

    def rec(law: str):
        if recs[law] is None:
            recs[law] = world.simulate(duration, FPS, hook_for(law))
        return recs[law]

    first = next(iter(world.render(rec("true"))))
    masks = world.masks(rec("true"))
    obj = world.object_spec("block", "block", first, masks, mu=MU)
    t = rec("true").times[:, rec("true").times.shape[1] // 2]
    xyz = rec("true").body_xyz(world, "block")
    track = [(round(float(a), 5), *(round(float(v), 3) for v in world.project(q))) for a, q in zip(t, xyz)]
    s_true = (xyz - foot) @ u
    apex = float(t[int(np.argmax(s_true))])
    ppm = world.px_per_m(tuple(c0))
    known = {"g": G, "mu": MU, "theta_deg": round(math.degrees(theta), 4),
             "ground_y": round(float(world.project((foot[0], -0.3, 0.0))[1]), 3),
             "foot_px": [round(float(v), 3) for v in world.project(tuple(foot))], "launch_s": round(launch, 4),
             "px_per_m": round(ppm, 4), "R_star": friction_ratio(theta), "anti_ratio": round(anti, 5),
             "studio": {"variant": variant.name, "camera": cam},
             "anti_note": "twin: while sliding down, a force along the slope makes a_down = a_up / anti_ratio"}
    prompt = (f"A fixed camera looks at a long wooden ramp rising to the {'right' if side > 0 else 'left'} at about "
              f"{math.degrees(theta):.0f} degrees, with a small stop post at its lower end. A rectangular block rests "
              "against the post. The surface is rough: the kinetic friction coefficient between block and ramp is "
              "0.20. After a moment the block is given one quick push up the slope; it slides up, slows down, "
              "stops, then slides back down to the post. The camera does not move and time runs at a steady rate.")
    case = E.studio_case("wmle", "rough_incline_round_trip", index, seed, prompt=prompt, duration=duration, fps=FPS,
                         width=W, height=H, objects=[obj], known=known,
                         assumptions=["kinetic friction coefficient 0.20 both ways", "incline about 30 degrees",
                                      "one push at the start, then free sliding", "fixed camera, uniform time"],
                         criteria=["P11: M1 (a_up / a_down) / R*(theta) = 1 (q, a = 0.10)"],
                         variant=f"studio-{variant.name}",
                         quantities={"R_star": friction_ratio(theta), "a_up_m_s2": a_up, "a_down_m_s2": a_nat,
                                     "apex_s": apex, "anti_e1": abs(anti / friction_ratio(theta) - 1)})
    case.truth.tracks = {"block": track}
    case.truth.events = {"launch": launch, "apex": apex}
    return StyledCase(case, first, lambda law: world.render(rec(law)))


# ----------------------------------------------------------------------------- P8


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
    cam = C.frame_camera(st, rng, variant, lo, hi)
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
    from lawful.suites.wmle.p09_sphere_vs_ring import TIME_RATIO

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


@scene("wmle", "edge_pivot_rotation")
def build_edge_pivot_rotation(index: int, seed: int) -> StyledCase:
    """P10: a grey rod slides in from the left, pushes a tall block's upper left face until the block
    tips over its lower right edge, and the block falls onto its right face.

    The block stands on a thin mat (friction 2, stiff contacts that do not creep) on a slide joint whose
    position and velocity the scene sets; the rod is kinematic (low friction, ``priority`` so its
    friction wins); everything else is MuJoCo contact dynamics. The rod stops a few degrees past the
    tipping angle. Law: the mat stays put. Twin: the mat moves right by ``anti_slide_fraction`` of the
    block's diagonal in proportion to the block's rotation, and friction carries the support edge
    along (the task's twin). A moved mocap body would not do: it has no velocity, so no friction drags.
    """
    label = 10
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    w = float(rng.uniform(0.1, 0.13))
    h = float(rng.uniform(0.19, 0.23))
    dep = float(rng.uniform(0.08, 0.11))
    mat_t = 0.006
    pivot = np.array([0.0, 0.0, mat_t])  # lower right edge (x, z), y = 0 is the block's mid-plane
    rate = math.radians(float(rng.uniform(32.0, 44.0)))
    rod_z = mat_t + float(rng.uniform(0.74, 0.84)) * h
    v_rod = rate * (rod_z - mat_t)
    contact_s = float(rng.uniform(0.35, 0.55))
    phi_tip = math.atan2(w, h)
    push_to = phi_tip + math.radians(float(rng.uniform(3.0, 5.0)))
    slide = float(rng.uniform(0.15, 0.3))
    diag = math.hypot(w, h)
    duration = 3.0
    color = C.object_rgbs(rng, 1, avoid=C.scene_hues(st.look))[0]
    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.6)))
    rod_r = 0.011
    tip0 = pivot[0] - w - v_rod * contact_s - 0.002
    mat_half = 0.5 * (w + h + 0.25)
    mat_x = pivot[0] - w - 0.05 + mat_half
    mb = st.body("mat", pos=(mat_x, 0.0, mat_t / 2), joint=E.Joint("slide", axis=(1, 0, 0), name="mat_j"))
    # the mat touches the block (contype/conaffinity bit 2), never the floor
    mb.geom(E.box(mat_half, 0.12, mat_t / 2), rgb=(96, 98, 104), specular=0.2, density=20000,
            friction="2.0 0.005 0.0001", solref="0.002 1", contype=2, conaffinity=2)
    rod_mat = st.material((128, 131, 136), 0.8)
    C.mocap(st, "rod", (tip0, 0.0, rod_z), [
        f'<geom name="rod_g" type="capsule" size="{rod_r}" fromto="{-1.5:.4g} 0 0 {-rod_r:.4g} 0 0" '
        f'material="{rod_mat}" friction="0.05 0.005 0.0001" priority="2"/>'])
    b = st.body("block", pos=(pivot[0] - w / 2, 0.0, mat_t + h / 2 + 0.0003), joint="free")
    b.geom(E.box(w / 2, dep / 2, h / 2), rgb=color, obj="block", specular=0.25, density=600,
           friction="2.0 0.005 0.0001", solref="0.002 1", contype=3, conaffinity=3)  # stiff: the edge does not creep
    spot_r = 0.26 * w
    b.geom(E.cylinder(spot_r, 0.0015), rgb=tuple(int(c * 0.3) for c in color),
           pos=(-0.2 * w, -dep / 2 - 0.0008, 0.3 * h), euler=(90, 0, 0), specular=0.2, density=1, **E.NO_CONTACT)
    lo = [tip0 - 0.12, -0.02]
    hi = [pivot[0] + h + 0.08, mat_t + h + 0.06]
    if variant.distractor:  # a look-alike box standing behind, right of where the block lands
        dx = pivot[0] + h + 0.18
        st.distractor(E.box(w / 2, dep / 2, 0.6 * h / 2), pos=(dx, 0.15, 0.3 * h), near=color)
        hi[0] = dx + w
    cam = C.frame_camera(st, rng, variant, lo, hi, fovy=(16.0, 22.0))
    world = st.build()
    m = world.model
    bid = world.id("body", "block")
    qa = m.jnt_qposadr[m.body_jntadr[bid]]
    rod_m = m.body_mocapid[world.id("body", "rod")]
    db = m.jnt_dofadr[m.body_jntadr[bid]]
    qm, dm = m.jnt_qposadr[m.joint("mat_j").id], m.jnt_dofadr[m.joint("mat_j").id]
    k_slide = slide * diag / (math.pi / 2)  # mat travel (m) per radian the block has turned

    def hook_for(law: str):
        state = {"stop": None}

        def hook(w_, d):
            phi = C.tilt(d.qpos[qa + 3:qa + 7])
            if state["stop"] is None and phi >= push_to:
                state["stop"] = d.mocap_pos[rod_m, 0]
            x = tip0 + v_rod * d.time if state["stop"] is None else state["stop"]
            d.mocap_pos[rod_m] = (x, 0.0, rod_z)
            turning = law == "anti" and phi > 0
            d.qpos[qm] = k_slide * phi if turning else 0.0
            d.qvel[dm] = k_slide * d.qvel[db + 4] if turning else 0.0  # body-frame y = world y here
        return hook

    recs: dict = {}

    def settle(d):  # the block comes to rest on the mat before the clip starts
        import mujoco

        for _ in range(500):
            mujoco.mj_step(m, d)
        d.qvel[:] = 0.0
        d.time = 0.0

    def rec(law: str):
        if law not in recs:
            recs[law] = world.simulate(duration, FPS, hook_for(law), settle)
        return recs[law]

    first = next(iter(world.render(rec("true"))))
    masks = world.masks(rec("true"))
    ppm = world.px_per_m((pivot[0] - w / 2, 0.0, h / 2))
    obj = world.object_spec("block", "block", first, masks, width_px=round(w * ppm, 3), height_px=round(h * ppm, 3))
    t = rec("true").times[:, rec("true").times.shape[1] // 2]
    xyz = rec("true").body_xyz(world, "block")
    phis = np.array([C.tilt(q[qa + 3:qa + 7]) for q in rec("true").qpos[:, rec("true").qpos.shape[1] // 2]])
    moved = np.flatnonzero(phis > math.radians(1.0))
    known = {"g": G, "w_px": round(w * ppm, 3), "h_px": round(h * ppm, 3),
             "ground_y": round(float(world.project((pivot[0], -dep / 2, mat_t))[1]), 3),
             "pivot_px": [round(float(v), 3) for v in world.project((pivot[0], -dep / 2, mat_t))],
             "push_rate_deg_s": round(math.degrees(rate), 3), "push_to_deg": round(math.degrees(push_to), 4),
             "anti_slide_fraction": round(slide, 5), "studio": {"variant": variant.name, "camera": cam},
             "anti_note": "twin: the mat under the block slides right by anti_slide_fraction of the diagonal as "
                          "the block turns, carrying its support edge"}
    prompt = ("A fixed camera looks at a tall rectangular block with a dark spot painted near its upper left corner, "
              "standing upright on a thin mat on the floor. A grey metal rod comes in horizontally from the left, "
              "touches the block's left face near the top and pushes it slowly to the right. The block tips over "
              "about its lower right edge, which stays in place, and falls onto its right side, where it lies still. "
              "It does not slide. The camera does not move and time runs at a steady rate.")
    case = E.studio_case("wmle", "edge_pivot_rotation", index, seed, prompt=prompt, duration=duration, fps=FPS,
                         width=W, height=H, objects=[obj], known=known,
                         assumptions=["rigid block", "no sliding at the support edge", "the floor is flat and fixed",
                                      "fixed camera, uniform time"],
                         criteria=["P10: M1 I[rotation >= 5 deg] q(max(pivot drift, ground gap, shape change); 0.02)"],
                         variant=f"studio-{variant.name}",
                         quantities={"E": 0.0, "rotation_deg": float(np.degrees(phis.max())),
                                     "anti_e_pivot": slide})
    case.truth.tracks = {"block": [(round(float(a), 5), *(round(float(v), 3) for v in world.project(q)))
                                   for a, q in zip(t, xyz)]}
    if len(moved):
        case.truth.events = {"rotation_start": float(t[moved[0]])}
    return StyledCase(case, first, lambda law: world.render(rec(law)))
