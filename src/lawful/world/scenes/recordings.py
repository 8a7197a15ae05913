"""Scenes of the recordings suite's rendered cases (:mod:`lawful.suites.recordings`): each task's motion as a
function of its case's ``known`` and the frames drawn along it. R1 draws with WMLE P2's fall scene
(:func:`~lawful.world.scenes.bounces.free_fall_frames`), R7 with P11's incline (its motion plan here:
:func:`incline_motion`)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from scipy.integrate import solve_ivp

from lawful.world.appearance import Style
from lawful.world.draw import Block, Bob, Scene, Sphere, Spring, String
from lawful.world.physics import bounce_trajectory, projectile, spring_position


def ball_frames(k: dict, width: int, height: int, style: Style | None, xs: np.ndarray, ys: np.ndarray,
                scene: Scene | None = None) -> Iterator[np.ndarray]:
    """The ball (``radius_px``, ``color``) at centres ``xs``, ``ys`` over ``scene`` (default: a floor at
    ``ground_y``)."""
    scene = scene if scene is not None else Scene(width, height, style).ground(k["ground_y"])
    color = tuple(k["color"])
    for x, y in zip(xs, ys):
        yield scene.frame([Sphere(float(x), float(y), k["radius_px"], color)])


# --- R1: a fall with quadratic drag seen by a tilted camera -----------------------------------


def lncosh(z: np.ndarray) -> np.ndarray:
    """``ln cosh z`` without overflow (large ``z``) or cancellation (small ``z``: ``log1p(2 sinh²(z/2))``)."""
    z = np.abs(np.asarray(z, float))
    small = np.log1p(2.0 * np.sinh(np.minimum(z, 1.0) / 2.0) ** 2)
    return np.where(z < 1.0, small, z + np.log1p(np.exp(-2.0 * z)) - math.log(2.0))


def drag_fall(t: np.ndarray, y0: float, t0: float, g: float, kappa: float) -> np.ndarray:
    """Position ``[T]`` of a body let go from rest at ``(t0, y0)`` with initial acceleration ``g`` and quadratic
    drag rate ``kappa = g / v_t`` (1/s; 0 = no drag), any consistent units; ``y0`` before ``t0``."""
    s = np.maximum(np.asarray(t, float) - t0, 0.0)
    if kappa < 1e-9:
        return y0 + 0.5 * g * s * s
    return y0 + g / kappa**2 * lncosh(kappa * s)


def image_of(u: np.ndarray, lam: float, span: float) -> np.ndarray:
    """Image displacement of a fall displacement ``u`` (px at the release's scale) seen by a tilted camera:
    ``u / (1 + lam·u/span)`` (the projective map of a line; ``lam < 0``: the scale grows along the fall)."""
    return np.asarray(u, float) / (1.0 + lam * np.asarray(u, float) / span)


def fall_of(d: np.ndarray, lam: float, span: float) -> np.ndarray:
    """Inverse of :func:`image_of`: the fall displacement behind image displacement ``d``."""
    return np.asarray(d, float) / (1.0 - lam * np.asarray(d, float) / span)


def drag_fall_y(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """Ball centre row (px) at times ``t``: held until ``hold_s``, then the drag fall of ``fall_height_m``
    (terminal speed ``vt_m_s``) or the twin's ``anti`` profile (ease / steady / jerk) over ``fall_time_s``, seen
    with the camera's ``perspective``."""
    D, T = k["ground_y"] - k["radius_px"] - k["top_y"], k["fall_time_s"]
    s = np.clip(np.asarray(t, float) - k["hold_s"], 0.0, T)
    u = s / T
    if law == "true":
        g = k["g"] * D / k["fall_height_m"]
        d = drag_fall(s, 0.0, 0.0, g, k["g"] / k["vt_m_s"])
    elif k["anti"] == "ease":
        d = D * (3 * u**2 - 2 * u**3)
    elif k["anti"] == "steady":
        d = D * u
    else:
        d = D * u**3
    lam = k.get("perspective", 0.0)  # a tilted camera: the image scale changes along the fall
    return k["top_y"] + D * image_of(np.minimum(d, D), lam, D) / image_of(D, lam, D)


# --- R2: a ball dropped from rest, bouncing with a slight sideways drift -----------------------


def drifting_bounce_xy(k: dict, t: np.ndarray, law: str) -> tuple[np.ndarray, np.ndarray]:
    """Ball centre (px) at times ``t``: held until ``hold_s``, dropped ``h0_px`` and bouncing with ``restitution``
    under ``g_px_s2`` while drifting at ``vx_px_s``; the twin's heights decay as ``e²`` per bounce but its k-th
    rebound lasts ``anti_float^k`` times what its height allows."""
    s = np.asarray(t, float) - k["hold_s"]
    h0, e, g = k["h0_px"], k["restitution"], k["g_px_s2"]
    if law == "true":
        h = np.where(s < 0, h0, bounce_trajectory(h0, e, g, np.maximum(s, 0.0)))
    else:
        t0 = math.sqrt(2 * h0 / g)
        h = np.where(s < 0, h0, h0 - 0.5 * g * s * s)
        start, j = t0, 1
        while start < float(s.max()) and j < 50:
            dur = 2 * e**j * t0 * k["anti_float"] ** j
            u = (s - start) / dur
            sel = (u >= 0) & (u < 1)
            h = np.where(sel, 4 * h0 * e ** (2 * j) * u * (1 - u), h)
            start += dur
            j += 1
    x = k["x"] + k["vx_px_s"] * np.maximum(s, 0.0)
    return x, k["ground_y"] - k["radius_px"] - np.maximum(h, 0.0)



# --- R3: a ball fired from a launcher, landing on the floor and rolling to a stop ----------------


def launched_ball_xy(k: dict, t: np.ndarray, law: str, straight: float,
                     stop_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Ball centre (px) at times ``t``: at rest until ``hold_s``, a projectile under ``g_px_s2`` for ``flight_time_s``,
    then rolling ``stop_px`` to a stop. Twin (``anti_kind``): *cartoon*, straight for the first ``straight`` of
    the flight, then falling to the same landing; *drag*, a horizontal velocity decaying as ``exp(−s/T)``."""
    T, g = k["flight_time_s"], k["g_px_s2"]
    s = np.clip(np.asarray(t, float) - k["hold_s"], 0.0, None)
    sf = np.minimum(s, T)
    x, h = projectile(sf, k["x0"], 0.0, k["vx_px_s"], k["vy_px_s"], g)
    if law == "anti" and k["anti_kind"] == "cartoon":
        sc = straight * T
        kappa = (k["vy_px_s"] * T + k["lift_px"]) / (0.5 * g * (T - sc) ** 2)
        h = k["vy_px_s"] * sf - 0.5 * kappa * g * np.maximum(0.0, sf - sc) ** 2
    elif law == "anti":
        x = k["x0"] + k["vx_px_s"] * T * (1 - np.exp(-sf / T))
    roll = stop_px * (1 - np.exp(-3 * (s - sf) / 0.3)) * np.sign(k["vx_px_s"])
    return x + roll, np.minimum(k["y_launch"] - h, k["ground_y"] - k["radius_px"])


def launcher_scene(k: dict, width: int, height: int, style: Style | None) -> Scene:
    """The floor, a platform of height ``lift_px`` under the launch point (if any) and the launcher's marker
    along the launch direction (``angle_deg``, the sign of ``vx_px_s``)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    r, x0, y0 = k["radius_px"], k["x0"], k["y_launch"]
    if k["lift_px"] > 0:
        scene.platform(x0 - 3 * r, y0 + r, x0 + 3 * r, k["ground_y"])
    a = math.radians(k["angle_deg"])
    ux, uy = math.cos(a) * np.sign(k["vx_px_s"]), -math.sin(a)
    scene.marker_line((x0 - 1.6 * r * ux, y0 - 1.6 * r * uy), (x0 - 3.2 * r * ux, y0 - 3.2 * r * uy), width=2)
    return scene


# --- R4: one pendulum on a string, damped, released from rest ------------------------------------


def damped_swing(t, length_m: float, theta0: float, g: float, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Angle and angular velocity of ``θ'' = −(g/L) sin θ − 2γ θ'`` released from rest at ``θ0`` (t ≥ 0)."""
    t = np.asarray(t, float)
    if t.size == 0 or t.max() <= 0:
        return np.full(t.shape, float(theta0)), np.zeros(t.shape)
    w2 = g / length_m
    ts, inv = np.unique(np.clip(t, 0, None), return_inverse=True)
    sol = solve_ivp(lambda _, y: (y[1], -w2 * math.sin(y[0]) - 2 * gamma * y[1]), (0.0, float(ts[-1])),
                    (theta0, 0.0), method="DOP853", t_eval=ts, rtol=1e-10, atol=1e-12)
    return sol.y[0][inv].reshape(t.shape), sol.y[1][inv].reshape(t.shape)


def pendulum_swing_angles(k: dict, duration: float, t: np.ndarray, law: str, g: float) -> np.ndarray:
    """Angle (rad) of the pendulum ``k['pendulum']`` at times ``t``: held until ``hold_s``, then a damped swing
    (:func:`damped_swing`); the twin (``k['anti']``) chirps, slows at large amplitude, swings with the wrong
    period or speeds up at its turning points (a triangle-like swing)."""
    p = k["pendulum"]
    th0 = int(p["side"]) * math.radians(float(p["amplitude_deg"]))
    tau = np.maximum(np.asarray(t, float) - float(p["hold_s"]), 0.0)
    anti = k["anti"]
    kind, v = anti["kind"], float(anti["value"])
    D = float(duration - p["hold_s"])
    if law == "anti" and kind == "chirp":  # local period grows to (1 + v) times by the end
        tau = D / v * np.log1p(v * tau / D)
    elif law == "anti" and kind == "amplitude":  # large swings slower by up to (1 + v)
        gam = float(p["gamma"])
        rate = 1.0 / (1.0 + v * np.exp(-gam * tau))  # dτ'/dτ
        tau = np.concatenate([[0.0], np.cumsum(0.5 * (rate[1:] + rate[:-1]) * np.diff(tau))]) * (1 + v)
    elif law == "anti" and kind == "period":
        tau = tau / v
    th, om = damped_swing(tau, float(p["length_m"]), th0, g, float(p["gamma"]))
    if law == "anti" and kind == "turning":
        w = math.sqrt(g / float(p["length_m"]))
        a, ph = np.hypot(th, om / w), np.arctan2(-om / w, th)
        th = a * ((1 - v) * np.cos(ph) + v * (2 / math.pi) * np.arcsin(np.cos(ph)))
    return th


def string_pendulum_frames(p: dict, ground_y: float, width: int, height: int, style: Style | None,
                           xs: np.ndarray, ys: np.ndarray) -> Iterator[np.ndarray]:
    """A floor at ``ground_y``, a bar at pendulum ``p``'s pivot, its string and its bob at centres ``xs``, ``ys``."""
    scene = Scene(width, height, style).ground(ground_y)
    scene.support(p["pivot_x"] - 70, p["pivot_x"] + 70, p["pivot_y"])
    for x, y in zip(xs, ys):
        yield scene.frame([String((p["pivot_x"], p["pivot_y"]), (float(x), float(y))),
                           Bob(float(x), float(y), float(p["radius_px"]), tuple(p["color"]))])


# --- R5: a block on a vertical spring below a bar, released from the spring's rest length ---------


def spring_extension(k: dict, duration: float, t: np.ndarray, law: str) -> np.ndarray:
    """Spring extension (px, down) at times ``t``: the block held until ``hold_s``, then a damped oscillation
    (``mass_kg``, ``stiffness``, ``damping_ratio``); the twin (``k['anti']``) chirps, grows or drifts."""
    tau = np.maximum(np.asarray(t, float) - k["hold_s"], 0.0)
    D = duration - k["hold_s"]
    kind, v = k["anti"]["kind"], float(k["anti"]["value"])
    if law == "anti" and kind == "chirp":
        tau = D / v * np.log1p(v * tau / D)
    m, stiff = k["mass_kg"], k["stiffness"]
    c = 2 * k["damping_ratio"] * math.sqrt(stiff * m)
    ext = spring_position(tau, m, stiff, k["g"], 0.0, damping=c) * k["px_per_m"]
    eq = m * k["g"] / stiff * k["px_per_m"]
    if law == "anti" and kind == "growing":  # the swing about equilibrium grows v-fold while it should decay
        zeta_w = k["damping_ratio"] * math.sqrt(stiff / m)
        ext = eq + (ext - eq) * np.exp(zeta_w * tau) * np.exp(math.log(v) * tau / D)
    elif law == "anti" and kind == "drift":  # the resting point creeps by v amplitudes over the clip
        ext = ext + v * eq * tau / D
    return ext


def hanging_block_frames(k: dict, width: int, height: int, style: Style | None,
                         ext: np.ndarray) -> Iterator[np.ndarray]:
    """The bar at ``bar_y``, the spring and the block (``side_px``) below it at extensions ``ext`` (px)."""
    scene = Scene(width, height, style).support(k["x"] - 60, k["x"] + 60, k["bar_y"])
    s = k["side_px"]
    for e in ext:
        top = k["bar_y"] + k["rest_px"] + float(e)
        yield scene.frame([Spring((k["x"], k["bar_y"]), (k["x"], top), coils=9, radius=9),
                           Block(k["x"], top + s / 2, s, s, 0.0, tuple(k["color"]))])


# --- R6: two carts on a level track, the first pushed into the second ----------------------------


def mirror_x(k: dict, x: float, width: int):
    """Image column of track position ``x`` (the track runs right to left when ``k['mirror']``)."""
    return width - x if k.get("mirror") else x


def cart_boxes(k: dict, w: np.ndarray, h: np.ndarray, width: int) -> list[tuple[float, float, float, float]]:
    """Each cart's box at its start ``x0``: the drawn block (sizes ``w``, ``h``) and one px around it."""
    out = []
    for i in range(2):
        x = mirror_x(k, k["x0"][i], width)
        b = Block(x, k["ground_y"] - h[i] / 2, w[i], h[i], 0.0, tuple(k["colors"][i])).bbox()
        out.append((b[0] - 1, b[1] - 1, b[2] + 1, b[3] + 1))
    return out


def cart_collision(k: dict, m: np.ndarray, t: np.ndarray, law: str, fps: float, sub: int = 40) -> dict:
    """Positions ``x [2, T]`` of the carts' centres at times ``t`` (unmirrored), the first contact ``t_c``, the
    velocities just before and after it and the time of the next cart–cart contact (inf if none)."""
    w = np.asarray(k["widths"], float)
    x, v = np.array(k["x0"], float), np.array(k["v0"], float)
    h = 1.0 / (fps * sub)
    n = int(math.ceil((float(t[-1]) + 1e-9) / h)) + 1
    xs = np.empty((n, 2))
    contacts, first = [], {}
    push_a = k["push_v"] / k["push_s"]
    for i in range(n):
        xs[i] = x
        now = i * h
        pushed = k["launch_s"] <= now < k["launch_s"] + k["push_s"]
        if k["decel_px_s2"] > 0:  # friction on whatever moves, the pushed cart excepted
            slow = np.sign(v) * np.maximum(0.0, np.abs(v) - k["decel_px_s2"] * h)
            v = np.where([pushed, False], v, slow)
        if pushed:
            v[0] = min(k["push_v"], v[0] + push_a * h)
        step = h
        gap = x[1] - x[0] - (w[0] + w[1]) / 2
        closing = v[0] - v[1]
        if closing > 0 and gap - closing * step <= 0:
            tau = max(0.0, gap / closing)
            x += v * tau
            before = v.copy()
            v = collide(m, v, k["restitution"], law if not contacts else "true", k)
            contacts.append(now + tau)
            if len(contacts) == 1:
                first = {"v_c": before.tolist(), "v_after": v.tolist()}
            step -= tau
        stop = k.get("end_stop_x")
        if stop is not None and x[1] + w[1] / 2 >= stop and v[1] > 0:
            v[1] = -0.7 * v[1]
        x += v * step
    tt = np.arange(n) * h
    xi = np.stack([np.interp(t, tt, xs[:, j]) for j in range(2)])
    return {"x": xi, "t_c": contacts[0] if contacts else math.inf,
            "t_next": contacts[1] if len(contacts) > 1 else math.inf, **first}


def collide(m: np.ndarray, v: np.ndarray, e: float, law: str, k: dict) -> np.ndarray:
    """Velocities after a 1-D collision with restitution ``e`` (law) or the twin's rule (``k['anti_kind']``)."""
    M = m[0] + m[1]
    p = m[0] * v[0] + m[1] * v[1]
    after = np.array([(p - m[1] * e * (v[0] - v[1])) / M, (p + m[0] * e * (v[0] - v[1])) / M])
    if law != "anti":
        return after
    if k["anti_kind"] == "swap":
        return v[::-1].copy()
    j = int(np.argmin(m))
    after[j] = v[j] + (1.0 + k["anti_gain"]) * (after[j] - v[j])
    return after


def carts_frames(k: dict, width: int, height: int, style: Style | None, x: np.ndarray) -> Iterator[np.ndarray]:
    """The track (floor at ``ground_y``, the end stop at ``end_stop_x`` if any) and the two blocks at track
    positions ``x [2, T]``."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    if k.get("end_stop_x") is not None:
        xs = k["end_stop_x"]
        scene.platform(mirror_x(k, xs, width), k["ground_y"] - 30, mirror_x(k, xs + 8, width), k["ground_y"])
    for i in range(x.shape[1]):
        yield scene.frame([Block(mirror_x(k, float(x[j][i]), width), k["ground_y"] - k["heights"][j] / 2,
                                 k["widths"][j], k["heights"][j], 0.0, tuple(k["colors"][j])) for j in range(2)])


# --- R7: a block pushed up a rough incline (or let go on it); P11 draws the scene ---------------------------


def incline_motion(kind: str, th: float, mu: float, g: float, travel: float, stop: float, t_leg: float,
                   twin: float | None, min_after: float) -> dict:
    """R7's rendered motion: ``kind`` ``round``/``stay`` (pushed up ``travel`` px in ``t_leg`` s from ``stop``
    + 8 px) or ``down`` (let go ``travel`` px up and sliding down in ``t_leg``); ``a_up`` (px/s²), ``v0``,
    ``start``, ``R`` = a_up / a_down (inf: it stays), ``t_up``, the twin's ``anti`` ratio (``twin`` on a round
    trip, else frictionless), ``t_after`` (the descent or return, at least ``min_after`` watched) and ``px_per_m``."""
    up_m, down_m = g * (math.sin(th) + mu * math.cos(th)), g * (math.sin(th) - mu * math.cos(th))
    frictionless = (math.sin(th) + mu * math.cos(th)) / math.sin(th)
    if kind == "down":
        t_down = t_leg
        a_down = 2 * travel / t_down**2
        a_up, v0, start = a_down * up_m / down_m, 0.0, stop + 8.0 + travel
        R, t_up, anti = up_m / down_m, 0.0, frictionless
    else:
        t_up = t_leg
        a_up = 2 * travel / t_up**2
        v0, start = a_up * t_up, stop + 8.0
        R = up_m / down_m if kind == "round" else math.inf
        anti = twin if kind == "round" else frictionless
    back = R if kind == "round" else anti  # a_up / a_down of the slower descent (law or twin)
    t_back = 0.0 if kind == "down" else math.sqrt(2 * (travel + start - stop) * back / a_up)
    return {"a_up": a_up, "v0": v0, "start": start, "R": R, "t_up": t_up, "anti": anti,
            "t_after": t_down if kind == "down" else max(t_back, min_after), "px_per_m": a_up / up_m}
