"""The ten Orchard-style tasks as planar simulations with closed-form (or integrated) motion: one builder
per task drawing its parameters from a seed, returning a :class:`~lawful.suites.applepi.scenario.Scenario`
with its law-correct motion and anti-physics twin. Units and frames: :mod:`lawful.suites.applepi.scenario`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

# Re-exported: callers take the task list, pillars and timing from here.
from lawful.suites.applepi.scenario import (BODY_COLORS, G, PILLAR_OF, PILLARS, TASKS, Body, Formula,  # noqa: F401
                                            Motion, Scenario, bouncing, choose_colors, discriminative_time, fmt,
                                            pair_on_floor, pick_times, random_body, stack_bodies)

# --- the ten tasks --------------------------------------------------------------------------
def free_fall(rng: np.random.Generator, duration: float) -> Scenario:
    """h = ½ g t²: one or two bodies dropped from rest onto a floor with restitution e (anti: g/3)."""
    n = int(rng.integers(1, 3))
    colors = choose_colors(rng, n)
    e = float(rng.choice([0.0, 0.3, 0.5]))
    bodies, hs, xs = [], [], []
    for i in range(n):
        b = random_body(rng, i, ("sphere", "cube", "cylinder", "cone"), colors)
        h = round(float(rng.uniform(1.0, 2.0)), 1)
        b.labels.update({"h": fmt(h, 1), "v_0": "0.0"})
        bodies.append(b)
        hs.append(h)
        xs.append(1.0 + 1.4 * i)
    impacts: list[float] = []

    def make(g: float, record: bool) -> Motion:
        def motion(t):
            ys, vys = [], []
            for b, h in zip(bodies, hs):
                y, vy, imp = bouncing(h + b.half_height, 0.0, g, e, b.half_height, t)
                ys.append(y)
                vys.append(vy)
                if record:
                    impacts.extend(imp)
            return stack_bodies([np.full_like(t, x) for x in xs], ys, [np.zeros_like(t)] * n, vys, [np.zeros_like(t)] * n)
        return motion

    make(G, True)(np.array([0.0]))
    events = [("impact", ti) for ti in sorted(set(impacts)) if ti < duration]
    h0, b0 = hs[0], bodies[0]
    return Scenario(
        task="FreeFall", bodies=bodies, motions={"true": make(G, False), "anti": make(G / 3, False)},
        duration=duration, env_labels={"g": "9.81"}, ground_labels={"e": fmt(e, 1)},
        formula=Formula("h = 1/2 g t^2", ["h = g t^2", "h = 1/2 g t", "h = v_0 t + g t^2"],
                        f"{fmt(h0, 1)} = 1/2 * 9.81 * t^2"),
        events=events, anti_description="falls with g/3", params={"e": e, "h": h0, "m": b0.mass})


def projectile_motion(rng: np.random.Generator, duration: float) -> Scenario:
    """r = r0 + v0 t + ½ g t²: launch from a table edge; the body stops where it lands (anti: horizontal impetus decays)."""
    colors = choose_colors(rng, 1)
    b = random_body(rng, 0, ("sphere", "cube", "cylinder"), colors, size=(0.28, 0.38))
    table_h = round(float(rng.uniform(0.9, 1.4)), 1)
    v0 = round(float(rng.uniform(2.5, 4.0)), 1)
    ang = math.radians(round(float(rng.uniform(25, 60)) / 5) * 5)
    b.labels.update({"v_0": fmt(v0, 1), "α": f"{round(math.degrees(ang))}°"})
    x0, y0 = 0.9, table_h + b.half_height
    vx, vy = v0 * math.cos(ang), v0 * math.sin(ang)
    land: list[float] = []

    def make(anti: bool) -> Motion:
        def motion(t):
            y, vyt, imp = bouncing(y0, vy, G, 0.0, b.half_height, t)
            tl = imp[0]
            if not anti:
                land.append(tl)
            tt = np.minimum(t, tl)
            if anti:
                tau = 0.25
                x = x0 + vx * tau * (1 - np.exp(-tt / tau))
                vxt = np.where(t < tl, vx * np.exp(-tt / tau), 0.0)
            else:
                x = x0 + vx * tt
                vxt = np.where(t < tl, vx, 0.0)
            return stack_bodies([x], [y], [vxt], [vyt], [np.zeros_like(t)])
        return motion

    make(False)(np.array([0.0]))
    table = (x0 - 0.9, 0.0, x0, table_h)
    return Scenario(
        task="ProjectileMotion", bodies=[b], motions={"true": make(False), "anti": make(True)}, duration=duration,
        env_labels={"g": "9.81"}, ground_labels={"e": "0.0"}, platforms=[table],
        scene_labels=[(f"h = {fmt(table_h, 1)}", (x0 - 0.45, table_h / 2))],
        formula=Formula("r = r_0 + v_0 t + 1/2 g t^2",
                        ["r = r_0 + v_0 t", "r = r_0 + 1/2 v_0 t^2 + g t", "r = r_0 + v_0 t - g t^2"],
                        f"r = (0, {fmt(table_h, 1)}) + {fmt(v0, 1)} (cos {round(math.degrees(ang))}°, "
                        f"sin {round(math.degrees(ang))}°) t + 1/2 (0, -9.81) t^2"),
        events=[("landing", land[0])] if land and land[0] < duration else [],
        anti_description="horizontal velocity decays (impetus)", params={"v0": v0, "angle": ang, "h": table_h})


def _incline_geometry(theta: float, length: float, x_top: float = 0.2):
    top = (x_top, length * math.sin(theta))
    bottom = (x_top + length * math.cos(theta), 0.0)
    return top, bottom


def _slide(theta: float, length: float, body: Body, a: float, t: np.ndarray, x_top: float):
    """Centre of a body sliding from rest down an incline, then along the floor at the speed it reached."""
    top, bottom = _incline_geometry(theta, length, x_top)
    u = np.array([math.cos(theta), -math.sin(theta)])
    nrm = np.array([math.sin(theta), math.cos(theta)])
    s0 = body.width / 2
    s_end = length
    tb = math.sqrt(2 * (s_end - s0) / a)
    vb = a * tb
    s = s0 + 0.5 * a * np.minimum(t, tb) ** 2
    on = t < tb
    cx = np.where(on, top[0] + u[0] * s + nrm[0] * body.half_height, bottom[0] + nrm[0] * body.half_height + vb * (t - tb))
    cy = np.where(on, top[1] + u[1] * s + nrm[1] * body.half_height, body.half_height)
    v = a * t
    vx = np.where(on, u[0] * v, vb)
    vy = np.where(on, u[1] * v, 0.0)
    ang = np.where(on, theta, 0.0)
    return cx, cy, vx, vy, ang, tb, vb


def inclined_plane(rng: np.random.Generator, duration: float) -> Scenario:
    """a = g sin θ: a cube slides from rest down a frictionless incline (anti: a = g cos θ)."""
    colors = choose_colors(rng, 1)
    b = random_body(rng, 0, ("cube",), colors, size=(0.3, 0.4))
    theta = math.radians(int(rng.integers(4, 7)) * 5)  # 20, 25, 30 degrees
    length = round(float(rng.uniform(2.0, 3.0)), 1)
    b.labels.update({"v_0": "0.0"})
    tb_list: list[float] = []

    def make(a: float, record: bool) -> Motion:
        def motion(t):
            cx, cy, vx, vy, ang, tb, _ = _slide(theta, length, b, a, t, 0.2)
            if record:
                tb_list.append(tb)
            return stack_bodies([cx], [cy], [vx], [vy], [ang])
        return motion

    make(G * math.sin(theta), True)(np.array([0.0]))
    top, bottom = _incline_geometry(theta, length)
    ramp = [(top[0], 0.0), top, bottom]
    deg = round(math.degrees(theta))
    return Scenario(
        task="InclinedPlane", bodies=[b],
        motions={"true": make(G * math.sin(theta), False), "anti": make(G * math.cos(theta), False)},
        duration=duration, env_labels={"g": "9.81", "μ": "0.0"}, ramps=[ramp],
        scene_labels=[(f"θ = {deg}°", (bottom[0] - 0.75, 0.12)), (f"L = {fmt(length, 1)}", (top[0] + 0.55 * (bottom[0] - top[0]), 0.55 * top[1] + 0.25))],
        formula=Formula("a = g sin(θ)", ["a = g cos(θ)", "a = g tan(θ)", "a = g / sin(θ)"], f"a = 9.81 * sin({deg}°)"),
        events=[("reaches_floor", tb_list[0])] if tb_list[0] < duration else [],
        anti_description="accelerates with g cos θ", params={"theta": theta, "L": length})


def circular_motion(rng: np.random.Generator, duration: float) -> Scenario:
    """mg = mv²/r at the top of a vertical loop: a ball launched at the bottom with v0 ≥ √(5 g r) (anti: constant speed)."""
    colors = choose_colors(rng, 1)
    b = random_body(rng, 0, ("sphere",), colors, size=(0.26, 0.34))
    rc = round(float(rng.uniform(0.6, 0.9)), 2)
    k = float(rng.uniform(1.0, 1.1))
    v0 = round(math.sqrt(5 * G * rc) * k, 1)
    if v0 * v0 < 5 * G * rc:
        v0 = round(v0 + 0.1, 1)
    track_r = rc + b.height / 2
    cx, cy = 0.3 + track_r, track_r + 0.06
    b.labels.update({"v_0": fmt(v0, 1)})
    tg = np.linspace(0.0, duration + 0.5, 4001)
    phi = np.zeros_like(tg)
    dt = tg[1] - tg[0]

    def dphi(p):
        return math.sqrt(max(v0 * v0 - 2 * G * rc * (1 - math.cos(p)), 1e-9)) / rc

    for i in range(1, len(tg)):  # RK4 on φ' = v(φ)/r
        p = phi[i - 1]
        k1 = dphi(p)
        k2 = dphi(p + 0.5 * dt * k1)
        k3 = dphi(p + 0.5 * dt * k2)
        k4 = dphi(p + dt * k3)
        phi[i] = p + dt * (k1 + 2 * k2 + 2 * k3 + k4) / 6

    def make(anti: bool) -> Motion:
        def motion(t):
            ph = v0 * t / rc if anti else np.interp(t, tg, phi)
            speed = np.full_like(t, v0) if anti else np.sqrt(np.maximum(v0 * v0 - 2 * G * rc * (1 - np.cos(ph)), 0))
            x = cx + rc * np.sin(ph)
            y = cy - rc * np.cos(ph)
            return stack_bodies([x], [y], [speed * np.cos(ph)], [speed * np.sin(ph)], [np.zeros_like(t)])
        return motion

    return Scenario(
        task="CircularMotion", bodies=[b], motions={"true": make(False), "anti": make(True)}, duration=duration,
        env_labels={"g": "9.81", "μ": "0.0"}, loops=[(cx, cy, track_r)],
        scene_labels=[(f"r = {fmt(rc)}", (cx, cy + 0.1))],
        formula=Formula("m g = m v^2 / r", ["m g = m v r", "m g = m v^2 r", "m g = m v / r"],
                        f"{b.labels['m']} * 9.81 = {b.labels['m']} * v^2 / {fmt(rc)}"),
        events=[], anti_description="keeps constant speed around the loop", params={"r": rc, "v0": v0})


def _collision(rng: np.random.Generator, duration: float, task: str, e: float) -> Scenario:
    colors = choose_colors(rng, 2)
    a = random_body(rng, 0, ("sphere", "cube", "cylinder"), colors, size=(0.3, 0.42))
    b = random_body(rng, 1, ("sphere", "cube", "cylinder"), colors, size=(0.3, 0.42))
    while abs(a.mass - b.mass) < 0.4:
        b.mass = round(float(rng.uniform(0.5, 3.0)), 1)
        b.labels["m"] = fmt(b.mass, 1)
    va = round(float(rng.uniform(1.5, 2.5)), 1)
    vb = round(float(rng.choice([0.0, 0.0, -0.5])), 1)
    a.labels["v_0"] = fmt(va, 1)
    b.labels["v_0"] = fmt(vb, 1)
    tc_target = float(rng.uniform(0.6, 0.9))
    xa = 0.6
    xb = xa + (a.width + b.width) / 2 + (va - vb) * tc_target
    rule_true = "restitution"
    rule_anti = "stick" if e >= 1.0 else "exchange"
    tcs: list[float] = []

    def make(rule: str, record: bool) -> Motion:
        def motion(t):
            xa_t, va_t, xb_t, vb_t, tc = pair_on_floor(xa, va, xb, vb, a, b, rule, e, t)
            if record:
                tcs.append(tc)
            z = np.zeros_like(t)
            return stack_bodies([xa_t, xb_t], [z + a.half_height, z + b.half_height], [va_t, vb_t], [z, z], [z, z])
        return motion

    make(rule_true, True)(np.array([0.0]))
    m1, m2 = a.labels["m"], b.labels["m"]
    v1, v2 = a.labels["v_0"], b.labels["v_0"]
    momentum = "m_1 v_1 + m_2 v_2 = m_1 v_1' + m_2 v_2'"
    if task == "PerfectlyInelasticCollision":
        correct = "m_1 v_1 + m_2 v_2 = (m_1 + m_2) v'"
        sub = f"{m1} * {v1} + {m2} * {v2} = ({m1} + {m2}) v'"
        wrong = [momentum + ", v_2' - v_1' = v_1 - v_2", "m_1 v_1 = m_2 v_2'", "m_1 v_1^2 + m_2 v_2^2 = (m_1 + m_2) v'^2"]
    elif task == "PerfectlyElasticCollision":
        correct = momentum + ", v_2' - v_1' = v_1 - v_2"
        sub = f"{m1} * {v1} + {m2} * {v2} = {m1} v_1' + {m2} v_2', v_2' - v_1' = {v1} - ({v2})"
        wrong = ["m_1 v_1 + m_2 v_2 = (m_1 + m_2) v'", "m_1 v_1 = m_2 v_2'", "v_1' = v_2, v_2' = v_1"]
    else:
        correct = momentum + ", v_2' - v_1' = e (v_1 - v_2)"
        sub = (f"{m1} * {v1} + {m2} * {v2} = {m1} v_1' + {m2} v_2', "
               f"v_2' - v_1' = {fmt(e, 1)} * ({v1} - ({v2}))")
        wrong = ["m_1 v_1 + m_2 v_2 = (m_1 + m_2) v'", momentum + ", v_2' - v_1' = v_1 - v_2", "m_1 v_1 = m_2 v_2'"]
    mid = ((xa + xb) / 2, max(a.height, b.height) + 0.35)
    return Scenario(
        task=task, bodies=[a, b], motions={"true": make(rule_true, False), "anti": make(rule_anti, False)},
        duration=duration, env_labels={"μ": "0.0"}, scene_labels=[(f"e = {fmt(e, 1)}", mid)],
        formula=Formula(correct, wrong, sub),
        events=[("collision", tcs[0])] if tcs[0] < duration else [],
        anti_description="bodies stick together" if rule_anti == "stick" else "velocities are exchanged",
        params={"e": e, "m1": a.mass, "m2": b.mass, "v1": va, "v2": vb})


def perfectly_elastic(rng, duration):
    """e = 1 (anti: the bodies stick)."""
    return _collision(rng, duration, "PerfectlyElasticCollision", 1.0)


def perfectly_inelastic(rng, duration):
    """e = 0 (anti: velocities are exchanged)."""
    return _collision(rng, duration, "PerfectlyInelasticCollision", 0.0)


def inelastic(rng, duration):
    """0 < e < 1 (anti: velocities are exchanged)."""
    return _collision(rng, duration, "InelasticCollision", round(float(rng.uniform(0.3, 0.7)), 1))


def at_rest(rng: np.random.Generator, duration: float) -> Scenario:
    """First law at rest: a thin mat is pulled out from under a resting body on a frictionless floor.

    The body keeps its place and drops by the mat's thickness once the mat has gone (anti: it rides along).
    """
    colors = choose_colors(rng, 2)
    body = random_body(rng, 0, ("sphere", "cube", "cylinder", "cone"), colors, size=(0.32, 0.44))
    mat_w, mat_h = round(float(rng.uniform(1.3, 1.7)), 1), 0.14
    mat = Body(id="obj_2", name=f"{colors[1]}Mat", shape="cube", width=mat_w, height=mat_h,
               mass=round(float(rng.uniform(0.3, 1.0)), 1), color=BODY_COLORS[colors[1]])
    vm = round(float(rng.uniform(1.5, 2.5)), 1)
    body.labels["v_0"] = "0.0"
    mat.labels = {"m": fmt(mat.mass, 1), "v_0": fmt(vm, 1)}
    xm0 = 0.4 + mat_w / 2
    xb = xm0 - mat_w / 2 + float(rng.uniform(0.45, 0.7)) * mat_w
    t_clear = (xb - (xm0 - mat_w / 2)) / vm

    def make(anti: bool) -> Motion:
        def motion(t):
            z = np.zeros_like(t)
            xm = xm0 + vm * t
            if anti:
                x = xb + vm * t
                y = z + mat_h + body.half_height
                vx = z + vm
                vy = z
            else:
                x = z + xb
                y, vy, _ = bouncing(mat_h + body.half_height, 0.0, G, 0.0, body.half_height, np.maximum(t - t_clear, 0))
                y = np.where(t < t_clear, mat_h + body.half_height, y)
                vy = np.where(t < t_clear, 0.0, vy)
                vx = z
            return stack_bodies([x, xm], [y, z + mat_h / 2], [vx, z + vm], [vy, z], [z, z])
        return motion

    t_drop = t_clear + math.sqrt(2 * mat_h / G)
    return Scenario(
        task="AtRest", bodies=[body, mat], motions={"true": make(False), "anti": make(True)}, duration=duration,
        env_labels={"g": "9.81", "μ": "0.0"},
        formula=Formula("v = v_0", ["v = v_mat", "F = m v", "v = v_0 + (F / m) t, F = μ m g"], "v = 0.0"),
        events=[("mat_clears", t_clear), ("lands", t_drop)], anti_description="the body rides along with the mat",
        params={"v_mat": vm, "t_clear": t_clear})


def uniform_linear_motion(rng: np.random.Generator, duration: float) -> Scenario:
    """x = x0 + v0 t on a frictionless floor (and optionally a shelf); anti: it slows to a stop."""
    n = int(rng.integers(1, 3))
    colors = choose_colors(rng, n)
    bodies, x0s, v0s, ys = [], [], [], []
    platforms = []
    for i in range(n):
        b = random_body(rng, i, ("sphere", "cube", "cylinder", "cone"), colors)
        v = round(float(rng.uniform(0.8, 2.0)), 1)
        b.labels["v_0"] = fmt(v, 1)
        bodies.append(b)
        x0s.append(0.5)
        v0s.append(v)
        base = 0.0 if i == 0 else 1.1
        if i == 1:
            platforms.append((0.0, base - 0.12, 0.5 + 2.2 * duration + 0.6, base))
        ys.append(base + b.half_height)

    def make(anti: bool) -> Motion:
        def motion(t):
            xs, vxs = [], []
            for x0, v in zip(x0s, v0s):
                if anti:
                    tau = 0.6 * duration
                    tt = np.minimum(t, tau)
                    xs.append(x0 + v * (tt - tt * tt / (2 * tau)))
                    vxs.append(v * np.maximum(1 - t / tau, 0))
                else:
                    xs.append(x0 + v * t)
                    vxs.append(np.full_like(t, v))
            z = np.zeros_like(t)
            return stack_bodies(xs, [z + y for y in ys], vxs, [z] * n, [z] * n)
        return motion

    return Scenario(
        task="UniformLinearMotion", bodies=bodies, motions={"true": make(False), "anti": make(True)},
        duration=duration, env_labels={"μ": "0.0"}, platforms=platforms,
        formula=Formula("x = x_0 + v_0 t", ["x = x_0 + 1/2 v_0 t^2", "v = v_0 - g t", "x = x_0 + v_0 / t"],
                        f"x = x_0 + {bodies[0].labels['v_0']} t"),
        events=[], anti_description="slows down to a stop without any force", params={"v0": v0s[0]})


def composition(rng: np.random.Generator, duration: float) -> Scenario:
    """Incline then collision: a cube slides down (a = g sin θ) and hits a resting body with restitution e.

    Anti: a = g cos θ on the incline and exchanged velocities at the collision.
    """
    colors = choose_colors(rng, 2)
    a = random_body(rng, 0, ("cube",), colors, size=(0.28, 0.38))
    b = random_body(rng, 1, ("sphere", "cube", "cylinder"), colors, size=(0.3, 0.4))
    theta = math.radians(int(rng.integers(4, 7)) * 5)
    length = round(float(rng.uniform(1.2, 1.8)), 1)
    e = round(float(rng.choice([0.0, 0.5, 1.0])), 1)
    a.labels["v_0"] = "0.0"
    b.labels["v_0"] = "0.0"
    top, bottom = _incline_geometry(theta, length, 0.2)
    gap = float(rng.uniform(0.5, 0.8))
    xb = bottom[0] + a.width / 2 + gap + (a.width + b.width) / 2
    events: list[tuple[str, float]] = []

    def make(acc: float, rule: str, record: bool) -> Motion:
        def motion(t):
            cx, cy, vx, vy, ang, tb, vb = _slide(theta, length, a, acc, t, 0.2)
            xa_floor = bottom[0] + a.half_height * math.sin(theta)
            xa_t, va_t, xb_t, vb_t, tc = pair_on_floor(xa_floor, vb, xb, 0.0, a, b, rule, e, t, start=tb)
            if record:
                events.extend([("reaches_floor", tb), ("collision", tc)])
            on = t < tb
            z = np.zeros_like(t)
            ax = np.where(on, cx, xa_t)
            avx = np.where(on, vx, va_t)
            bx = np.where(on, xb, xb_t)
            bvx = np.where(on, 0.0, vb_t)
            return stack_bodies([ax, bx], [cy, z + b.half_height], [avx, bvx], [vy, z], [ang, z])
        return motion

    make(G * math.sin(theta), "restitution", True)(np.array([0.0]))
    deg = round(math.degrees(theta))
    ramp = [(top[0], 0.0), top, bottom]
    return Scenario(
        task="Composition", bodies=[a, b],
        motions={"true": make(G * math.sin(theta), "restitution", False),
                 "anti": make(G * math.cos(theta), "exchange", False)},
        duration=duration, env_labels={"g": "9.81", "μ": "0.0"}, ramps=[ramp],
        scene_labels=[(f"θ = {deg}°", (bottom[0] - 0.65, 0.1)), (f"L = {fmt(length, 1)}", (top[0] + 0.5 * (bottom[0] - top[0]), 0.5 * top[1] + 0.25)),
                      (f"e = {fmt(e, 1)}", (xb, b.height + 0.3))],
        formula=Formula("v = sqrt(2 g L sin(θ)), m_1 v = m_1 v_1' + m_2 v_2'",
                        ["v = g L sin(θ), m_1 v = (m_1 + m_2) v'", "v = sqrt(2 g L cos(θ)), m_1 v = m_2 v_2'",
                         "v = 2 g L, m_1 v^2 = m_1 v_1'^2 + m_2 v_2'^2"],
                        f"v = sqrt(2 * 9.81 * {fmt(length, 1)} * sin({deg}°)), {a.labels['m']} v = "
                        f"{a.labels['m']} v_1' + {b.labels['m']} v_2'"),
        events=[ev for ev in events if ev[1] < duration], anti_description="a = g cos θ, then velocities exchanged",
        params={"theta": theta, "L": length, "e": e})


BUILDERS: dict[str, Callable[[np.random.Generator, float], Scenario]] = {
    "FreeFall": free_fall,
    "ProjectileMotion": projectile_motion,
    "InclinedPlane": inclined_plane,
    "CircularMotion": circular_motion,
    "PerfectlyElasticCollision": perfectly_elastic,
    "PerfectlyInelasticCollision": perfectly_inelastic,
    "InelasticCollision": inelastic,
    "AtRest": at_rest,
    "UniformLinearMotion": uniform_linear_motion,
    "Composition": composition,
}


def build(task: str, seed: int, duration: float = 2.0) -> Scenario:
    """The scenario of ``task`` drawn from ``seed`` (deterministic)."""
    if task not in BUILDERS:
        from lawful.choices import unknown

        raise KeyError(unknown(task, BUILDERS, "Apple-π task"))
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, TASKS.index(task)])
    return BUILDERS[task](rng, duration)


