"""Studio scenes of WMLE P10–P11 (rigid-body rotation, friction), simulated by MuJoCo.

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

from lawful.world.scenes.slopes import MU, friction_ratio
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
