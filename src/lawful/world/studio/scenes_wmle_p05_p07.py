"""Studio scenes of WMLE P5–P7 (collision, sliding onset, hanging chain), simulated and rendered by MuJoCo.

- P5 ``equal_mass_collision``: a red ball slides along a smooth table top into a resting blue ball of the
  same size and mass (frictionless contacts with the table, near-elastic ball contact). Twin: once the
  balls separate a hidden push adds 35 % to the blue ball's momentum (``v2' = 1.35 v`` while the red ball
  stops: e1 = 0.35, the task's anti).
- P6 ``sliding_onset``: a board hinged at its left end (a stop at the hinge) is turned up at a steady
  rate; two blocks of the same material but different size rest on it and slide when ``tan θ = μ``.
  Twin: the right block's friction is ``tan(θ_c + 8°)``, so it needs 8° more tilt (the task's anti).
- P7 ``hanging_chain``: a chain of 36 rigid links on hinges (joint damping) hangs between two hooks at one
  height with seven marker beads at equal arc length; it starts from a kinked shape (held at one point)
  and settles. Twin: a stretch of the chain (about 12–32 % of its length) is eight times heavier, so it
  settles into a skewed, non-catenary curve with its low point near 30 % of the span.

The motion plane faces the camera square on (see :mod:`._kit_wmle_p01_p07`).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.world.studio import engine as E  # noqa: I001 (sets MUJOCO_GL before mujoco is imported)
from lawful.world.studio import _kit_wmle_p01_p07 as K
import mujoco  # noqa: E402
from lawful.world.studio.registry import scene

G = E.G
SOLIMP = "0.99 0.99 0.001"
WOOD = (150, 110, 70)
METAL = (150, 152, 160)


def _dof(w: E.World, body: str) -> tuple[int, int]:
    """``(qpos address, dof address)`` of the joint of ``body``."""
    j = int(w.model.body_jntadr[w.id("body", body)])
    return int(w.model.jnt_qposadr[j]), int(w.model.jnt_dofadr[j])


# ----------------------------------------------------------------------------- P5


@scene("wmle", "equal_mass_collision")
def equal_mass_collision(index: int, seed: int):
    rng = K.rng_for(seed, 5, index)
    st, v = K.new_stage(seed, 5, index)
    r = float(rng.uniform(0.04, 0.055))
    zt = float(rng.uniform(0.6, 0.8))  # table top
    x_blue = float(rng.uniform(0.7, 0.9))
    t_c = float(rng.uniform(1.0, 1.4))
    speed = (x_blue - 2 * r) / t_c
    after = float(rng.uniform(1.2, 1.5))
    duration = round(t_c + after, 4)
    x_end = x_blue + 1.4 * speed * after + 2 * r + 0.08  # the twin's blue ball also stays on the table
    red = tuple(int(c) for c in rng.uniform([200, 25, 20], [235, 55, 45]))
    blue = tuple(int(c) for c in rng.uniform([30, 70, 200], [60, 110, 235]))
    # camera above the table top (it looks down on it): the table's front edge hides no part of a ball
    K.frame_region(st, v, rng, lo=(-0.2, zt - 0.05), hi=(x_end + 0.05, zt + 2 * r + 0.3), slack=(1.0, 0.0))
    st.fixed(E.box((x_end + 0.25) / 2, 0.15, 0.02), ((x_end - 0.25) / 2 + 0.0, 0.0, zt - 0.02), WOOD, 0.3,
             name="table")
    for lx in (-0.2, x_end - 0.05):
        for ly in (-0.12, 0.12):
            st.fixed(E.box(0.025, 0.025, (zt - 0.04) / 2), (lx, ly, (zt - 0.04) / 2), WOOD, 0.2, **E.NO_CONTACT)
    for oid, x, rgb in (("red_ball", 0.0, red), ("blue_ball", x_blue, blue)):
        b = st.body(oid, pos=(x, 0.0, zt + r), joint="free")
        b.geom(E.sphere(r), rgb=rgb, obj=oid, condim=1, priority=1, solref=E.restitution_solref(0.97),
               solimp=SOLIMP, density=1100)
    if v.distractor:
        st.distractor(E.sphere(r), pos=(float(rng.uniform(0.3, 0.6)), 0.22, zt + r), near=red)
    w = st.build()
    (qr, dr), (qb, db) = _dof(w, "red_ball"), _dof(w, "blue_ball")
    bid = w.id("body", "blue_ball")
    gr, gb = w.id("geom", "red_ball_g0"), w.id("geom", "blue_ball_g0")
    mass = float(w.model.body_subtreemass[bid])
    tau = 0.02

    def sim(law: str, fps: float = K.FPS) -> E.Recording:
        state = {"t0": None, "v2": 0.0, "touching": False}

        def init(d: mujoco.MjData) -> None:
            d.qvel[dr] = speed

        def hook(wd: E.World, d: mujoco.MjData) -> None:
            touching = any({d.contact[i].geom1, d.contact[i].geom2} == {gr, gb} for i in range(d.ncon))
            if law == "anti" and state["touching"] and not touching and state["t0"] is None:
                state["t0"], state["v2"] = d.time, float(d.qvel[db])
            if state["t0"] is not None:
                on = d.time - state["t0"] < tau
                d.xfrc_applied[bid, 0] = 0.35 * mass * state["v2"] / tau if on else 0.0
            state["touching"] = touching

        return w.simulate(duration, fps, hook=hook, init=init)

    recs = {"true": sim("true")}
    masks = w.masks(recs["true"])
    first = next(iter(w.render(recs["true"])))
    objs = [w.object_spec(o, "sphere", first, masks, radius_m=r) for o in ("red_ball", "blue_ball")]
    ppm = w.px_per_m((0, 0, zt + r))
    known = {"ground_y": K.r3(w.project((0, 0, zt))[1]), "radius_px": K.r3(r * ppm),
             "x_red": K.r3(w.project((0, 0, zt + r))[0]), "x_blue": K.r3(w.project((x_blue, 0, zt + r))[0]),
             "speed_px_s": K.r3(speed * ppm), "collision_s": K.r3(t_c), "studio_variant": v.name,
             "anti_momentum_ratio": 1.35,
             "anti_note": "twin: after the balls separate a hidden push gives the blue ball 1.35 v while the red "
                          "ball stops (e1 = 0.35)"}
    case = E.studio_case(
        "wmle", "equal_mass_collision", index, seed, duration=duration, fps=K.FPS, width=st.width, height=st.height,
        objects=objs, known=known, variant=f"studio-{v.name}",
        quantities={"v1_before": speed * ppm, "v1_after": 0.0, "v2_after": speed * ppm, "e1": 0.0},
        prompt=("A fixed camera looks square on at a smooth, level table top. A red ball is already sliding to the "
                "right towards a blue ball of the same size and mass that rests in its path. The red ball hits the "
                "blue one head-on in an elastic collision; both stay on the table and in view. Time runs at a "
                "steady rate."),
        assumptions=["equal masses", "head-on collision on a level surface", "blue ball initially at rest",
                     "negligible friction and rolling resistance", "fixed camera, uniform time"],
        criteria=["M1: horizontal momentum (v1' + v2') / v1 = 1"])
    return K.styled(case, w, recs, sim, first=first)


# ----------------------------------------------------------------------------- P6

BOARD_L, BOARD_T, LIP = 1.2, 0.03, (0.02, 0.035)  # board length, thickness; stop thickness, height (m)


@scene("wmle", "sliding_onset")
def sliding_onset(index: int, seed: int):
    rng = K.rng_for(seed, 6, index)
    st, v = K.new_stage(seed, 6, index)
    zh = float(rng.uniform(0.3, 0.45))  # hinge line (board top surface at the hinge)
    mu = float(rng.uniform(0.36, 0.48))
    theta_c = math.degrees(math.atan(mu))
    duration = 4.0
    omega = theta_c / (float(rng.uniform(0.42, 0.5)) * duration)  # deg/s from flat at t = 0
    max_tilt = theta_c + 12.0
    big, small = (0.08, 0.05, 0.06), (0.055, 0.05, 0.04)  # half sizes (along board, depth, height)
    sizes = [big, small] if rng.uniform() < 0.5 else [small, big]
    s_pos = [float(rng.uniform(0.3, 0.4)), float(rng.uniform(0.75, 0.88))]
    colors = K.vivid(rng, 2, 90.0, avoid=K.scene_hues(st))
    top = zh + BOARD_L * math.sin(math.radians(max_tilt))
    K.frame_region(st, v, rng, lo=(-0.15, zh - 0.3), hi=(BOARD_L + 0.1, top + 0.15), slack=(1.0, 0.3))
    st.fixed(E.cylinder(0.03, 0.12), (0, 0, zh - 0.03), METAL, 0.6, euler=(90, 0, 0), **E.NO_CONTACT)
    st.fixed(E.box(0.04, 0.1, (zh - 0.03) / 2), (0, 0, (zh - 0.03) / 2), METAL, 0.4, **E.NO_CONTACT)
    board = st.body("board", pos=(0, 0, zh), joint=E.Joint("hinge", axis=(0, -1, 0), name="hinge"))
    board.geom(E.box(BOARD_L / 2, 0.09, BOARD_T / 2), WOOD, pos=(BOARD_L / 2, 0, -BOARD_T / 2), specular=0.2,
               friction="0.05 0.005 0.0001", density=600)
    board.geom(E.box(LIP[0] / 2, 0.09, LIP[1] / 2), (110, 80, 50), pos=(LIP[0] / 2, 0, LIP[1] / 2), specular=0.2,
               friction="0.05 0.005 0.0001")
    ids = ("block_left", "block_right")
    for oid, s, hs, rgb in zip(ids, s_pos, sizes, colors):
        b = st.body(oid, pos=(s, 0.0, zh + hs[2]), joint="free")
        b.geom(E.box(*hs), rgb=rgb, obj=oid, friction=f"{mu:.6g} 0.005 0.0001", priority=1, density=700)
    if v.distractor:
        st.distractor(E.box(*small), pos=(BOARD_L + 0.05, 0.45, small[2]), near=colors[1])
    w = st.build()
    w.model.dof_armature[w.model.jnt_dofadr[w.model.joint("hinge").id]] = 1e4  # the board is driven, blocks cannot turn it
    w.model.opt.noslip_iterations = 5
    qh, dh = _dof(w, "board")
    g_right = w.id("geom", "block_right_g0")
    masses = [float(w.model.body_subtreemass[w.id("body", o)]) for o in ids]

    def sim(law: str, fps: float = K.FPS) -> E.Recording:
        def hook(wd: E.World, d: mujoco.MjData) -> None:
            th = min(omega * d.time, max_tilt)
            d.qpos[qh] = math.radians(th)
            d.qvel[dh] = math.radians(omega) if th < max_tilt else 0.0

        mu_r = math.tan(math.radians(theta_c + 8.0)) if law == "anti" else mu
        w.model.geom_friction[g_right, 0] = mu_r
        try:
            return w.simulate(duration, fps, hook=hook)
        finally:
            w.model.geom_friction[g_right, 0] = mu

    recs = {"true": sim("true")}
    masks = w.masks(recs["true"])
    first = next(iter(w.render(recs["true"])))
    objs = [w.object_spec(o, "block", first, masks, mass_kg=m) for o, m in zip(ids, masses)]
    hinge = w.project((0, 0, zh))
    ppm = w.px_per_m((0, 0, zh))
    known = {"g": G, "hinge": [K.r3(hinge[0]), K.r3(hinge[1])], "board_length_px": K.r3(BOARD_L * ppm),
             "board_angle0_deg": 0.0, "tilt_rate_deg_s": K.r3(omega), "max_tilt_deg": K.r3(max_tilt),
             "mu_static": K.r3(mu), "onset_angle_deg": K.r3(theta_c), "px_per_m": K.r3(ppm),
             "s_px": [K.r3(s * ppm) for s in s_pos], "colors": [list(o.color) for o in objs],
             "studio_variant": v.name, "anti_onset_delta_deg": 8.0,
             "anti_note": "twin: the right block's friction is tan(theta_c + 8 deg): it needs 8 degrees more tilt"}
    case = E.studio_case(
        "wmle", "sliding_onset", index, seed, duration=duration, fps=K.FPS, width=st.width, height=st.height,
        objects=objs, known=known, variant=f"studio-{v.name}",
        quantities={"onset_angle_deg": theta_c, "e1": 0.0, "e2": 0.0},
        prompt=("A fixed camera looks square on at a long wooden board that lies flat, hinged at its left end on a "
                "steel axle, with a small stop at the hinge. Two blocks of the same material but different size and "
                "mass sit on the board, one near the hinge and one further out. The free end of the board is raised "
                "slowly and steadily; at some inclination the blocks start to slide down towards the hinge. Time "
                "runs at a steady rate."),
        assumptions=["both blocks have the same contact surface (same static friction)", "board tilted slowly",
                     "rigid board turning about a fixed hinge", "fixed camera, uniform time"],
        criteria=["M1: both blocks start sliding in the same frame", "M2: both start at the same inclination"])
    return K.styled(case, w, recs, sim, first=first)


# ----------------------------------------------------------------------------- P7

N_LINKS, N_BEADS = 36, 7
LINK_R = 0.008
LINK_RGB = (60, 60, 64)
DAMPING = 0.2  # joint damping (N m s): the chain settles well before the last 15 % of the clip


def _kink(S: float, L: float, k: int, n: int) -> tuple[float, float, float, float]:
    """Pin point ``(px, pz)`` (below the left support) and the absolute angles of the two straight pieces."""
    a, b = k * L / n, (n - k) * L / n
    px = (a * a - b * b + S * S) / (2 * S)
    pz = -math.sqrt(max(a * a - px * px, 0.0))
    return px, pz, math.atan2(-pz, px), math.atan2(pz, S - px)


@scene("wmle", "hanging_chain")
def hanging_chain(index: int, seed: int):
    rng = K.rng_for(seed, 7, index)
    st, v = K.new_stage(seed, 7, index)
    S = float(rng.uniform(1.4, 1.8))
    L = S * float(rng.uniform(1.2, 1.35))
    zs = float(rng.uniform(1.6, 2.0))
    xa = -S / 2
    k = int(round(float(rng.uniform(0.22, 0.36)) * N_LINKS))
    k += 1 if k % (N_LINKS // 6) == 0 else 0  # the kink sits between beads
    px, pz, t1, t2 = _kink(S, L, k, N_LINKS)
    heavy0 = float(rng.uniform(0.12, 0.18))
    bead_r = float(rng.uniform(0.028, 0.034))
    cols = K.vivid(rng, N_BEADS - 1, 50.0, avoid=K.scene_hues(st))
    cols.append(cols[0])  # end beads alike: equal colour bias on both supports
    duration = 4.0
    a_cat = _catenary_a(S, L)
    sag = a_cat * (math.cosh(S / (2 * a_cat)) - 1)
    low = zs - max(sag, -pz) - bead_r
    K.frame_region(st, v, rng, lo=(xa - 0.2, low - 0.1), hi=(xa + S + 0.2, zs + 0.15))
    for x in (xa, xa + S):
        st.fixed(E.cylinder(0.02, (zs + 0.05) / 2), (x, 0.06, (zs + 0.05) / 2), METAL, 0.6, **E.NO_CONTACT)
        st.fixed(E.box(0.05, 0.03, 0.015), (x, 0.03, zs + 0.05), METAL, 0.6, **E.NO_CONTACT)
    st.static.append(f'<site name="hookB" pos="{xa + S:.6g} 0 {zs:.6g}" size="0.002"/>')
    st.static.append(f'<site name="pinP" pos="{xa + px:.6g} 0 {zs + pz:.6g}" size="0.002"/>')
    ell = L / N_LINKS
    parent = None
    for i in range(N_LINKS):
        ang = t1 if i == 0 else (t2 - t1 if i == k else 0.0)
        j = E.Joint("hinge", axis=(0, 1, 0), damping=DAMPING, name=f"j{i}")
        pos = (xa, 0.0, zs) if i == 0 else (ell, 0.0, 0.0)
        body = (st.body if parent is None else parent.body)(f"link{i}", pos, j, euler=(0, math.degrees(ang), 0))
        body.geom(E.capsule(LINK_R, (0, 0, 0), (ell, 0, 0)), LINK_RGB, specular=0.3, mass=0.01, **E.NO_CONTACT)
        if i % (N_LINKS // 6) == 0:
            b = i // (N_LINKS // 6)
            body.geom(E.sphere(bead_r), cols[b], obj=f"bead_{b}", mass=0.001, **E.NO_CONTACT)
        if i == k:
            body.site("pin")
        parent = body
    parent.geom(E.sphere(bead_r), cols[-1], obj=f"bead_{N_BEADS - 1}", pos=(ell, 0, 0), mass=0.001, **E.NO_CONTACT)
    parent.site("tip", (ell, 0, 0))
    st.extra.append('<equality><connect name="hook" site1="tip" site2="hookB"/></equality>')
    if v.distractor:
        st.distractor(E.sphere(bead_r), pos=(xa + S + 0.12, 0.2, bead_r), near=cols[3])
    w = st.build()
    w.model.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST  # joint damping stiff for RK4 on light links
    link_mass = w.model.body_mass.copy()
    heavy = [w.id("body", f"link{i}") for i in range(N_LINKS) if heavy0 <= i / N_LINKS < heavy0 + 0.2]

    def sim(law: str, fps: float = K.FPS) -> E.Recording:
        if law == "anti":
            for b in heavy:
                w.model.body_mass[b] = 8 * link_mass[b]
                w.model.body_inertia[b] *= 8
        try:
            return w.simulate(duration, fps)
        finally:
            w.model.body_mass[:] = link_mass
            for b in heavy:
                w.model.body_inertia[b] /= 8 if law == "anti" else 1

    recs = {"true": sim("true")}
    masks = w.masks(recs["true"])
    first = next(iter(w.render(recs["true"])))
    objs = [w.object_spec(f"bead_{b}", "sphere", first, masks) for b in range(N_BEADS)]
    ppm = w.px_per_m((0, 0, zs))
    sup = [w.project((xa, 0, zs)), w.project((xa + S, 0, zs))]
    known = {"supports": [[K.r3(p[0]), K.r3(p[1])] for p in sup], "span_px": K.r3(S * ppm),
             "chain_length_px": K.r3(L * ppm), "catenary_a_px": K.r3(a_cat * ppm), "sag_px": K.r3(sag * ppm),
             "pin_fraction": K.r3(k / N_LINKS), "ground_y": K.r3(w.project((0, 0, 0))[1]),
             "colors": [list(o.color) for o in objs], "studio_variant": v.name,
             "anti_heavy_fraction": [K.r3(heavy0), K.r3(heavy0 + 0.2)],
             "anti_note": "twin: the links between anti_heavy_fraction of the chain's length are 8x heavier, so "
                          "it settles into a skewed curve that is no catenary"}
    case = E.studio_case(
        "wmle", "hanging_chain", index, seed, duration=duration, fps=K.FPS, width=st.width, height=st.height,
        objects=objs, known=known, variant=f"studio-{v.name}",
        quantities={"sag_px": sag * ppm, "catenary_a_px": a_cat * ppm, "e1": 0.0, "e2": 0.0},
        prompt=("A fixed camera looks square on at a flexible chain of small dark links with seven coloured marker "
                "beads, hanging between two hooks at the same height on steel posts. At the start one point of the "
                "chain is held down and to the side, so the chain forms a bent, lopsided shape; it is let go, the "
                "chain swings and settles to rest under gravity."),
        assumptions=["uniform flexible inextensible chain", "supports at equal heights", "chain released from rest",
                     "comes to rest before the end", "fixed camera"],
        criteria=["M1: settled contour is a catenary (fit RMSE / sag)", "M2: support heights equal"])
    return K.styled(case, w, recs, sim, first=first)


def _catenary_a(span: float, length: float) -> float:
    from scipy.optimize import brentq

    return float(brentq(lambda a: 2 * a * math.sinh(span / (2 * a)) - length, span / 200, span * 100))
