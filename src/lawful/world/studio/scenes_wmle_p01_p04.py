"""Studio scenes of WMLE P1–P4 (bounces, free fall, projectiles), simulated and rendered by MuJoCo.

- P1 ``bounce_height_decay``: a rubber ball dropped from rest bounces on the floor (contact restitution
  ``e`` from :func:`~lawful.world.studio.engine.restitution_solref`). Twin: after the first impact the
  contact restitutes ``e²`` and gravity on the ball is scaled by ``e^(2(k-1))`` from impact ``k`` on, so
  rebound heights still fall by ``e²`` while every flight lasts as long as the first (timing
  restitution 1) — the task's own anti.
- P2 ``free_fall``: a heavy ball hangs on a thread under a beam; the thread is burnt through at the
  ball and it falls to the floor. Twin: linear drag ``-m v / τ`` plus extra gravity so that it lands at
  the same time (the task's anti).
- P3 ``complementary_angle_throws``: two balls on the floor, each in front of its launch rail (30° and
  60°), fired together at the same speed. Twin: the 60° ball falls with 1.3 g.
- P4 ``oblique_projectile``: one ball fired at 45°. Twin: gravity 1.4 g and vertical launch speed
  1.4×, i.e. every height 1.4× with the same range and timing.

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
LIFT = 0.002  # launched balls are held this far above the floor: a ball launched from floor contact is slowed
# by friction at take-off, the more the flatter its launch (30° ranges came out 1.5 % long of 60° ones)


def _solref(e: float) -> np.ndarray:
    return np.array([float(v) for v in E.restitution_solref(float(e)).split()])


def _distractor(st: E.Stage, rng: np.random.Generator, rgb, r: float, xs: tuple[float, float]) -> None:
    """A resting ball of nearly ``rgb`` on the floor behind the motion plane, at x in ``xs``."""
    x = float(rng.uniform(*xs))
    st.distractor(E.sphere(r), pos=(x, float(rng.uniform(0.25, 0.45)), r), near=rgb)


def _hold(qpos0: np.ndarray, t_release: float):
    """Hook keeping every free body at its initial state until ``t_release``."""

    def hook(w: E.World, d: mujoco.MjData) -> None:
        if d.time < t_release - 1e-9:
            d.qpos[:] = qpos0
            d.qvel[:] = 0.0

    return hook


# ----------------------------------------------------------------------------- P1


@scene("wmle", "bounce_height_decay")
def bounce_height_decay(index: int, seed: int):
    rng = K.rng_for(seed, 1, index)
    st, v = K.new_stage(seed, 1, index)
    e = float(rng.uniform(0.78, 0.88))
    h0 = float(rng.uniform(1.0, 1.5))  # drop of the ball's bottom (m)
    r = float(rng.uniform(0.035, 0.05))
    rgb = K.vivid(rng, 1, avoid=K.scene_hues(st))[0]
    t0 = math.sqrt(2 * h0 / G)
    impacts = t0 + np.cumsum([2 * e**k * t0 for k in range(1, 7)])
    duration = round(float(min(4.6, impacts[3] + 0.35)), 4)  # impacts 1..5 in view: four complete rebounds
    K.frame_region(st, v, rng, lo=(-0.3, -0.02), hi=(0.3, h0 + 2 * r + 0.04))
    ball = st.body("ball", pos=(0.0, 0.0, h0 + r), joint="free")
    ball.geom(E.sphere(r), rgb=rgb, obj="ball", solref=E.restitution_solref(e), solimp=SOLIMP, priority=1,
              density=400)
    if v.distractor:
        _distractor(st, rng, rgb, r, (0.15, 0.28))
    w = st.build()
    gid = w.id("geom", "ball_g0")
    bid = w.id("body", "ball")
    law_ref, anti_ref = _solref(e), _solref(e * e)

    def sim(law: str, fps: float = K.FPS) -> E.Recording:
        state = {"n": 0, "touch": False}
        mass = float(w.model.body_subtreemass[bid])

        def hook(wd: E.World, d: mujoco.MjData) -> None:
            touch = d.ncon > 0
            if state["touch"] and not touch:  # contact just ended: impact n complete
                k = state["n"]
                if k == 1:
                    wd.model.geom_solref[gid] = anti_ref
                d.xfrc_applied[bid, 2] = -(e ** (2 * (k - 1)) - 1.0) * mass * G if k >= 2 else 0.0
            if touch and not state["touch"]:
                state["n"] += 1
            state["touch"] = touch

        w.model.geom_solref[gid] = law_ref
        try:
            return w.simulate(duration, fps, hook=hook if law == "anti" else None)
        finally:
            w.model.geom_solref[gid] = law_ref

    recs = {"true": sim("true")}
    masks = w.masks(recs["true"])
    first = next(iter(w.render(recs["true"])))
    obj = w.object_spec("ball", "sphere", first, masks, radius_m=r)
    floor_y = w.project((0.0, 0.0, 0.0))[1]
    ppm = w.px_per_m((0.0, 0.0, r))
    known = {"g": G, "h0_m": K.r3(h0), "restitution": K.r3(e), "px_per_m": K.r3(ppm), "ground_y": K.r3(floor_y),
             "x": K.r3(w.project((0, 0, r))[0]), "radius_px": K.r3(r * ppm),
             "top_y": K.r3(w.project((0, 0, h0 + r))[1]), "color": list(obj.color), "studio_variant": v.name,
             "anti_note": "twin: after the first impact the contact restitutes e^2 and gravity on the ball is "
                          "scaled by e^(2(k-1)) from impact k on: heights fall by e^2, every flight lasts as "
                          "long as the first (timing restitution 1)"}
    case = E.studio_case(
        "wmle", "bounce_height_decay", index, seed, duration=duration, fps=K.FPS, width=st.width, height=st.height,
        objects=[obj], known=known, variant=f"studio-{v.name}", quantities={"restitution": e, "e1": 0.0},
        prompt=("A fixed camera looks square on at a hard, level studio floor. A small rubber ball is let go from "
                "rest near the top of the picture and bounces on the floor again and again, each rebound a little "
                "lower than the one before; at least four rebounds are shown. Time runs at a steady rate."),
        assumptions=["ball released from rest", "hard level floor", "constant coefficient of restitution",
                     "negligible air resistance", "fixed camera, uniform time"],
        criteria=["M1: height-based and timing-based restitution agree; no energy gain",
                  "M2: rebound heights do not increase; restitution stays constant"])
    return K.styled(case, w, recs, sim, first=first)


# ----------------------------------------------------------------------------- P2


@scene("wmle", "free_fall")
def free_fall(index: int, seed: int):
    rng = K.rng_for(seed, 2, index)
    st, v = K.new_stage(seed, 2, index)
    H = float(rng.uniform(4.0, 6.0))  # drop of the ball's bottom (m)
    r = float(rng.uniform(0.18, 0.26))
    hold = float(rng.uniform(0.2, 0.35))
    thread = float(rng.uniform(0.2, 0.35))
    rgb = K.vivid(rng, 1, avoid=K.scene_hues(st))[0]
    t_fall = math.sqrt(2 * H / G)
    tau = 0.35 * t_fall
    duration = round(hold + t_fall + 0.5, 4)
    z_ball, z_beam = H + r, H + 2 * r + thread
    K.frame_region(st, v, rng, lo=(-0.7, -0.05), hi=(0.7, z_beam + 0.12))
    metal = (150, 150, 158)
    st.fixed(E.box(0.5, 0.06, 0.05), (0.0, 0.0, z_beam + 0.05), metal, 0.6, **E.NO_CONTACT)
    st.fixed(E.capsule(0.006, (0, 0, z_ball + r * 0.9), (0, 0, z_beam)), (0, 0, 0), (235, 232, 220), 0.1,
             **E.NO_CONTACT)
    ball = st.body("ball", pos=(0.0, 0.0, z_ball), joint="free")
    ball.geom(E.sphere(r), rgb=rgb, obj="ball", solref=E.restitution_solref(0.3), solimp=SOLIMP, priority=1,
              density=600)
    if v.distractor:
        _distractor(st, rng, rgb, r * 0.8, (0.45, 0.6))
    w = st.build()
    bid = w.id("body", "ball")
    mass = float(w.model.body_subtreemass[bid])
    shape = tau * tau * (t_fall / tau - 1 + math.exp(-t_fall / tau))
    k_g = H / (G * shape)  # gravity factor that lands the dragged ball at t_fall

    def sim(law: str, fps: float = K.FPS) -> E.Recording:
        held = _hold(np.array([0, 0, z_ball, 1, 0, 0, 0], float), hold)

        def hook(wd: E.World, d: mujoco.MjData) -> None:
            held(wd, d)
            if law == "anti" and d.time >= hold - 1e-9:
                d.xfrc_applied[bid, 2] = -(k_g - 1.0) * mass * G - mass * d.qvel[2] / tau

        return w.simulate(duration, fps, hook=hook)

    recs = {"true": sim("true")}
    masks = w.masks(recs["true"])
    first = next(iter(w.render(recs["true"])))
    obj = w.object_spec("ball", "sphere", first, masks, radius_m=r)
    ppm = w.px_per_m((0, 0, z_ball))
    known = {"g": G, "height_m": K.r3(H), "px_per_m": K.r3(ppm), "ground_y": K.r3(w.project((0, 0, 0))[1]),
             "top_y": K.r3(w.project((0, 0, z_ball))[1]), "x": K.r3(w.project((0, 0, z_ball))[0]),
             "radius_px": K.r3(r * ppm), "hold_s": K.r3(hold), "fall_time_s": K.r3(t_fall),
             "color": list(obj.color), "studio_variant": v.name, "anti_drag_tau_s": K.r3(tau),
             "anti_note": "twin: linear drag -m v/tau plus extra gravity so that it lands at the same time: "
                          "velocity increments shrink"}
    case = E.studio_case(
        "wmle", "free_fall", index, seed, duration=duration, fps=K.FPS, width=st.width, height=st.height,
        objects=[obj], known=known, variant=f"studio-{v.name}",
        quantities={"acceleration_px_s2": G * ppm, "e1": 0.0, "e2": 0.0},
        prompt=(f"A fixed camera looks square on at a heavy ball hanging on a thin thread below a steel beam, about "
                f"{H:.0f} metres above the studio floor. The thread is burnt through at the ball and the ball drops "
                "straight down from rest to the floor. Time runs at a steady rate."),
        assumptions=["released from rest", "negligible air resistance", "uniform gravity", "fixed camera, uniform time"],
        criteria=["M1: equal velocity increments in equal times (CV of the increments)",
                  "M2: distances in three equal intervals in the ratio 1:3:5"])
    return K.styled(case, w, recs, sim, first=first)


# ----------------------------------------------------------------------------- P3, P4


def _launcher(st: E.Stage, x0: float, r: float, angle_deg: float, rgb=(120, 124, 130)) -> None:
    """A launch rail behind the ball, pointing along its launch direction (no contacts)."""
    a = math.radians(angle_deg)
    L = 0.35
    c = (x0 + (r + L / 2) * math.cos(a), r + 0.03, r + (r + L / 2) * math.sin(a))
    st.fixed(E.box(L / 2, 0.012, 0.012), c, rgb, 0.5, euler=(0, -angle_deg, 0), **E.NO_CONTACT)
    st.fixed(E.box(0.05, 0.05, 0.012), (x0, r + 0.03, 0.012), rgb, 0.3, **E.NO_CONTACT)


def _projectiles(st: E.Stage, balls: list[dict], x_stop: float):
    """Free balls resting on the floor (they land without a bounce, condim 3: rolling friction coupled with a
    fast skidding landing makes MuJoCo balls hop) and a padded bumper at ``x_stop`` that stops them after
    they roll on. Balls collide with each other too: after landing both roll to the bumper, and without
    contact the second would sink into the first (their flights never meet: 0.6 m apart where x crosses)."""
    r = max(b["r"] for b in balls)
    st.fixed(E.box(0.06, 0.35, 1.6 * r), (x_stop + 0.06, 0.0, 1.6 * r), (70, 72, 78), 0.1, name="bumper",
             priority=2, condim=1, solref=E.restitution_solref(0.0), solimp=SOLIMP)  # frictionless: no climbing
    for b in balls:
        body = st.body(b["id"], pos=(b["x"], 0.0, b["r"] + LIFT), joint="free")
        body.geom(E.sphere(b["r"]), rgb=b["rgb"], obj=b["id"], condim=3, priority=1,
                  friction="0.9 0.02 0.08", solref=E.restitution_solref(0.0), solimp=SOLIMP, density=500)
        _launcher(st, b["x"], b["r"], b["angle"])


def _elliptic(w: E.World) -> E.World:
    """Elliptic friction cones: with pyramidal ones a fast ball skidding on landing hops off the floor."""
    w.model.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    return w


def _launch_hook(w: E.World, balls: list[dict], hold: float, gscale: dict[str, float], vz_scale: dict[str, float]):
    ids = {b["id"]: w.id("body", b["id"]) for b in balls}
    adr = {b["id"]: int(w.model.jnt_dofadr[w.model.body_jntadr[ids[b["id"]]]]) for b in balls}
    qadr = {b["id"]: int(w.model.jnt_qposadr[w.model.body_jntadr[ids[b["id"]]]]) for b in balls}
    q0 = {b["id"]: np.array([b["x"], 0.0, b["r"] + LIFT, 1, 0, 0, 0], float) for b in balls}
    state = {"launched": False}

    def hook(wd: E.World, d: mujoco.MjData) -> None:
        if d.time < hold - 1e-9:
            for b in balls:
                d.qpos[qadr[b["id"]]:qadr[b["id"]] + 7] = q0[b["id"]]
                d.qvel[adr[b["id"]]:adr[b["id"]] + 6] = 0.0
            return
        if not state["launched"]:
            state["launched"] = True
            for b in balls:
                a = math.radians(b["angle"])
                d.qvel[adr[b["id"]]:adr[b["id"]] + 6] = 0.0
                d.qvel[adr[b["id"]]] = b["speed"] * math.cos(a)
                d.qvel[adr[b["id"]] + 2] = b["speed"] * math.sin(a) * vz_scale.get(b["id"], 1.0)
        for oid, s in gscale.items():
            d.xfrc_applied[ids[oid], 2] = -(s - 1.0) * float(wd.model.body_subtreemass[ids[oid]]) * G

    return hook


@scene("wmle", "complementary_angle_throws")
def complementary_angle_throws(index: int, seed: int):
    rng = K.rng_for(seed, 3, index)
    st, v = K.new_stage(seed, 3, index)
    r = float(rng.uniform(0.08, 0.1))
    speed = float(rng.uniform(6.0, 7.0))
    hold = float(rng.uniform(0.2, 0.3))
    gap = float(rng.uniform(0.4, 0.5))
    R = speed**2 * math.sin(math.radians(60)) / G
    T60 = 2 * speed * math.sin(math.radians(60)) / G
    apex = (speed * math.sin(math.radians(60))) ** 2 / (2 * G)
    c30, c60 = K.vivid(rng, 2, 90.0, avoid=K.scene_hues(st))
    balls = [dict(id="ball_30", x=0.0, r=r, rgb=c30, angle=30.0, speed=speed),
             dict(id="ball_60", x=gap, r=r, rgb=c60, angle=60.0, speed=speed)]
    duration = round(hold + T60 + 0.45, 4)
    K.frame_region(st, v, rng, lo=(-0.3, -0.05), hi=(gap + R + 0.65, apex + 2 * r + 0.12))
    _projectiles(st, balls, gap + R + 0.5)
    if v.distractor:
        _distractor(st, rng, c60, r, (gap + 0.5 * R, gap + 0.8 * R))
    w = _elliptic(st.build())

    def sim(law: str, fps: float = K.FPS) -> E.Recording:
        g = {"ball_60": 1.3} if law == "anti" else {}
        return w.simulate(duration, fps, hook=_launch_hook(w, balls, hold, g, {}))

    recs = {"true": sim("true")}
    masks = w.masks(recs["true"])
    first = next(iter(w.render(recs["true"])))
    objs = [w.object_spec(b["id"], "sphere", first, masks, angle_deg=b["angle"]) for b in balls]
    ppm = w.px_per_m((0, 0, r))
    known = {"g": G, "speed_m_s": K.r3(speed), "px_per_m": K.r3(ppm), "ground_y": K.r3(w.project((0, 0, 0))[1]),
             "radius_px": K.r3(r * ppm), "x30": K.r3(w.project((0, 0, r))[0]), "x60": K.r3(w.project((gap, 0, r))[0]),
             "range_px": K.r3(R * ppm), "hold_s": K.r3(hold), "colors": [list(o.color) for o in objs],
             "studio_variant": v.name, "anti_gravity_factor_60": 1.3,
             "anti_note": "twin: the 60-degree ball falls with 1.3 g (range R/1.3)"}
    case = E.studio_case(
        "wmle", "complementary_angle_throws", index, seed, duration=duration, fps=K.FPS, width=st.width,
        height=st.height, objects=objs, known=known, variant=f"studio-{v.name}",
        quantities={"range_px": R * ppm, "e1": 0.0},
        prompt=("A fixed camera looks square on at a flat studio floor. Two identical balls sit side by side at the "
                "left, each in front of its own launch rail: the first rail points 30 degrees above the floor, the "
                "second 60 degrees. Both balls are fired at the same moment with the same speed, fly along separate "
                "arcs and land back on the floor, where they roll to a stop. Time runs at a steady rate."),
        assumptions=["identical balls", "equal launch speeds", "launch angles 30 and 60 degrees",
                     "landing at launch height", "negligible air resistance", "fixed camera, uniform time"],
        criteria=["M1: equal ranges R30 = R60", "M2: parabolic paths and equal launch speeds"])
    return K.styled(case, w, recs, sim, first=first)


@scene("wmle", "oblique_projectile")
def oblique_projectile(index: int, seed: int):
    rng = K.rng_for(seed, 4, index)
    st, v = K.new_stage(seed, 4, index)
    r = float(rng.uniform(0.08, 0.1))
    speed = float(rng.uniform(6.0, 7.5))
    hold = float(rng.uniform(0.2, 0.3))
    R, T = speed**2 / G, math.sqrt(2.0) * speed / G
    rgb = K.vivid(rng, 1, avoid=K.scene_hues(st))[0]
    balls = [dict(id="ball", x=0.0, r=r, rgb=rgb, angle=45.0, speed=speed)]
    duration = round(hold + T + 0.45, 4)
    K.frame_region(st, v, rng, lo=(-0.3, -0.05), hi=(R + 0.65, 1.4 * R / 4 + 2 * r + 0.1))
    _projectiles(st, balls, R + 0.5)
    if v.distractor:
        _distractor(st, rng, rgb, r, (0.5 * R, 0.8 * R))
    w = _elliptic(st.build())

    def sim(law: str, fps: float = K.FPS) -> E.Recording:
        anti = law == "anti"
        return w.simulate(duration, fps, hook=_launch_hook(w, balls, hold, {"ball": 1.4} if anti else {},
                                                           {"ball": 1.4} if anti else {}))

    recs = {"true": sim("true")}
    masks = w.masks(recs["true"])
    first = next(iter(w.render(recs["true"])))
    obj = w.object_spec("ball", "sphere", first, masks, angle_deg=45.0)
    ppm = w.px_per_m((0, 0, r))
    known = {"g": G, "speed_m_s": K.r3(speed), "px_per_m": K.r3(ppm), "ground_y": K.r3(w.project((0, 0, 0))[1]),
             "radius_px": K.r3(r * ppm), "x0": K.r3(w.project((0, 0, r))[0]), "range_px": K.r3(R * ppm),
             "hold_s": K.r3(hold), "flight_time_s": K.r3(T), "color": list(obj.color), "studio_variant": v.name,
             "anti_height_factor": 1.4,
             "anti_note": "twin: gravity 1.4 g and vertical launch speed 1.4x: heights 1.4x, same range and timing"}
    case = E.studio_case(
        "wmle", "oblique_projectile", index, seed, duration=duration, fps=K.FPS, width=st.width, height=st.height,
        objects=[obj], known=known, variant=f"studio-{v.name}",
        quantities={"H_over_R": 0.25, "range_px": R * ppm, "apex_height_px": R * ppm / 4},
        prompt=("A fixed camera looks square on at a flat studio floor. A ball rests at the left in front of a launch "
                "rail aimed 45 degrees above the floor. It is fired, rises to its highest point and comes back down "
                "to the floor further right, where it rolls to a stop. The whole flight stays in view; time runs at "
                "a steady rate."),
        assumptions=["launch angle 45 degrees", "landing at launch height", "negligible air resistance",
                     "fixed camera, uniform time"],
        criteria=["M1: apex height / range = 1/4", "M2: uniform v_x, uniform Δv_y, parabolic path"])
    return K.styled(case, w, recs, sim, first=first)
