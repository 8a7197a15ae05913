"""Scenes on slopes: a block pushed up a rough incline (WMLE P11), a sphere and a ring rolling down twin
inclines (P9), a marked ball rolling down onto the floor (P8), two
blocks on a slowly tilting board (P6)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from lawful.world.appearance import Style
from lawful.world.draw import Block, Cylinder, Scene, Sphere
from lawful.world.physics import K_RING, K_SPHERE, rolling_distance

MU = 0.20  # P11's incline friction coefficient


def friction_ratio(theta: float, mu: float = MU) -> float:
    """``R* = (sin θ + μ cos θ) / (sin θ - μ cos θ)``; NaN where the block could not slide down."""
    den = math.sin(theta) - mu * math.cos(theta)
    return (math.sin(theta) + mu * math.cos(theta)) / den if den > 0 else math.nan


LIP = (8.0, 14.0)  # P6's stop at the hinge end: thickness along the board, height above it (px)


def slope_frame(k: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Foot of the incline, unit vector up the slope and outward normal (px)."""
    th = math.radians(k["theta_deg"])
    return (np.array([k["foot_x"], k["ground_y"]]), np.array([math.cos(th), -math.sin(th)]),
            np.array([-math.sin(th), -math.cos(th)]))


def slide_px(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """Block centre's distance up the slope from the foot (px) at times ``t``: at rest, launched at
    ``launch_s``, up to the apex, back down to the stop post, at rest. The twin comes down with
    ``a_up / anti_ratio`` instead of ``a_up / R_star``."""
    t = np.asarray(t, float)
    a_up = k["a_up_px_s2"]
    a_down = a_up / (k["anti_ratio"] if law == "anti" else k["R_star"])
    v0 = k["v0_px_s"]
    tau = t - k["launch_s"]
    t_apex = v0 / a_up
    s_apex = k["start_px"] + v0 * v0 / (2 * a_up)
    up = k["start_px"] + v0 * tau - 0.5 * a_up * tau * tau
    down = s_apex - 0.5 * a_down * (tau - t_apex) ** 2
    s = np.where(tau <= 0, k["start_px"], np.where(tau <= t_apex, up, np.maximum(down, k["stop_px"])))
    return s


def block_item(k: dict, s: float) -> Block:
    """The block whose centre is ``s`` px up the slope."""
    foot, u, n = slope_frame(k)
    c = foot + s * u + 0.5 * k["block_h"] * n
    return Block(float(c[0]), float(c[1]), k["block_w"], k["block_h"], -math.radians(k["theta_deg"]),
                 tuple(k["color"]))


def rough_incline_layout(rng: np.random.Generator, g: float) -> tuple[dict, dict]:
    """P11's incline (about 30°), block, stop post and push drawn from ``rng``: the case's known numbers (rounded)
    and the unrounded ones the case's truth and prompt use (``theta``, ``bh``, ``start``, ``launch``, ``t_up``,
    ``a_up_px``, ``duration``)."""
    theta = float(rng.uniform(27.0, 33.0))
    th = math.radians(theta)
    ground_y = float(rng.uniform(320.0, 336.0))
    foot_x = float(rng.uniform(40.0, 70.0))
    span = min(540.0, (ground_y - 24.0) / math.tan(th))
    length = span / math.cos(th)
    bw, bh = float(rng.uniform(36.0, 44.0)), float(rng.uniform(22.0, 28.0))
    post = 6.0
    stop = post + bw / 2
    start = stop + 8.0
    travel = float(rng.uniform(0.62, 0.74)) * (length - start - bw / 2)
    t_up = float(rng.uniform(1.2, 1.4))
    a_up_px = 2 * travel / t_up**2
    R = friction_ratio(th)
    a_up_m = g * (math.sin(th) + MU * math.cos(th))
    launch = float(rng.uniform(0.25, 0.4))
    t_down = math.sqrt(2 * (travel + start - stop) * R / a_up_px)
    duration = math.ceil((launch + t_up + t_down + 0.5) * 4) / 4
    k = {"g": g, "mu": MU, "theta_deg": round(theta, 4), "ground_y": round(ground_y, 2), "foot_x": round(foot_x, 2),
         "span_px": round(span, 3), "block_w": round(bw, 3), "block_h": round(bh, 3), "post_px": post,
         "stop_px": round(stop, 4), "start_px": round(start, 4), "launch_s": round(launch, 4),
         "v0_px_s": round(a_up_px * t_up, 5), "a_up_px_s2": round(a_up_px, 5), "R_star": R,
         "px_per_m": round(a_up_px / a_up_m, 5)}
    return k, {"theta": theta, "bh": bh, "start": start, "launch": launch, "t_up": t_up, "a_up_px": a_up_px,
               "duration": duration}


def rough_incline_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                         law: str) -> Iterator[np.ndarray]:
    """Frames of the incline with its stop post and the block sliding up and back (``k``: P11's known)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    foot, u, n = slope_frame(k)
    th = math.radians(k["theta_deg"])
    top = (k["foot_x"] + k["span_px"], k["ground_y"] - k["span_px"] * math.tan(th))
    scene.ramp([tuple(foot), top, (top[0], k["ground_y"])])
    h = 0.8 * k["block_h"]
    scene.ramp([tuple(foot), tuple(foot + h * n), tuple(foot + h * n + k["post_px"] * u),
                tuple(foot + k["post_px"] * u)])
    for s in slide_px(k, times, law):
        yield scene.frame([block_item(k, float(s))])


# ----------------------------------------------------------------------------- P9: sphere and ring on twin inclines


@dataclass
class MarkedSphere(Sphere):
    """A shaded ball with a dark round spot painted ``0.55 r`` from its centre at screen angle ``angle``."""

    angle: float = 0.0

    def draw(self, img: np.ndarray, style: Style) -> None:
        super().draw(img, style)
        shift = 4
        d = 0.55 * self.r
        cx = self.x + d * math.cos(self.angle)
        cy = self.y + d * math.sin(self.angle)
        dark = tuple(int(c * 0.3) for c in self.color)
        cv2.circle(img, (int(round(cx * (1 << shift))), int(round(cy * (1 << shift)))),
                   int(round(0.24 * self.r * (1 << shift))), dark, -1, cv2.LINE_AA, shift)


def lane_geometry(k: dict, lane: int) -> dict:
    """Surface line of incline ``lane`` (0 left, 1 right): apex, unit vector down the slope, normal (px)."""
    th = math.radians(k["theta_deg"])
    x0 = k["lane_x"][lane]
    apex = np.array([x0, k["ground_y"] - k["base_px"] - k["span_px"] * math.tan(th)])
    u = np.array([math.cos(th), math.sin(th)])
    n = np.array([math.sin(th), -math.cos(th)])
    return {"apex": apex, "u": u, "n": n}


def body_centre(k: dict, lane: int, s) -> tuple[np.ndarray, np.ndarray]:
    """Centre (px) of a body of radius ``radius_px`` at path distance ``s`` (px) from its start."""
    g = lane_geometry(k, lane)
    s = np.asarray(s, float) + k["start_px"]
    r = k["radius_px"]
    return g["apex"][0] + s * g["u"][0] + r * g["n"][0], g["apex"][1] + s * g["u"][1] + r * g["n"][1]


def sphere_ring_items(k: dict, s_sphere: float, s_ring: float) -> list:
    """The marked sphere and the striped ring at path distances ``s_sphere``, ``s_ring`` (px)."""
    r = k["radius_px"]
    lane = k["lanes"]
    xs, ys = body_centre(k, lane["sphere"], s_sphere)
    xr, yr = body_centre(k, lane["ring"], s_ring)
    return [MarkedSphere(float(xs), float(ys), r, tuple(k["colors"]["sphere"]), angle=k["marker0"] + s_sphere / r),
            Cylinder(float(xr), float(yr), r, tuple(k["colors"]["ring"]), angle=k["marker0"] + s_ring / r,
                     hollow=True, inner=0.72)]


def travel_px(k: dict, body: str, t: np.ndarray, law: str) -> np.ndarray:
    """P9: distance rolled (px) by ``body`` (``sphere`` or ``ring``) at times ``t``: from rest, stopped by the
    end block."""
    inertia = K_SPHERE if body == "sphere" else (k["anti_ring_inertia"] if law == "anti" else K_RING)
    s = rolling_distance(t, math.radians(k["theta_deg"]), inertia, k["g"]) * k["px_per_m"]
    return np.minimum(s, k["stop_px"])


def twin_incline_frames(k: dict, width: int, height: int, style: Style | None, s_sphere: np.ndarray,
                        s_ring: np.ndarray) -> Iterator[np.ndarray]:
    """Two inclines side by side with end blocks; the sphere and the ring at the given path distances (px)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    th = math.radians(k["theta_deg"])
    for lane in (0, 1):
        x0 = k["lane_x"][lane]
        x1 = x0 + k["span_px"]
        top = k["ground_y"] - k["base_px"] - k["span_px"] * math.tan(th)
        scene.ramp([(x0, k["ground_y"]), (x0, top), (x1, k["ground_y"] - k["base_px"]), (x1, k["ground_y"])])
        g = lane_geometry(k, lane)
        s_end = k["start_px"] + k["stop_px"] + k["radius_px"]
        p, u, n = g["apex"] + s_end * g["u"], g["u"], g["n"]
        h = 1.2 * k["radius_px"]
        scene.ramp([tuple(p), tuple(p + h * n), tuple(p + h * n + 8 * u), tuple(p + 8 * u)])
    for a, b in zip(s_sphere, s_ring):
        yield scene.frame(sphere_ring_items(k, float(a), float(b)))


# ----------------------------------------------------------------------------- P8: a marked ball rolling


def ball_incline_travel(k: dict) -> float:
    """Centre travel (px) down the incline before the ball meets the floor (a concave corner)."""
    th = math.radians(k["incline_deg"])
    return (k["corner"][1] - k["radius_px"] - k["start"][1]) / math.sin(th)


def ball_path(k: dict, ell: np.ndarray) -> np.ndarray:
    """Centre position ``[T, 2]`` after rolling a centre-path length ``ell`` (px): down the incline's
    offset line, then along the floor's (the contact switches at the concave corner)."""
    th = math.radians(k["incline_deg"])
    sx, sy = k["start"]
    L = ball_incline_travel(k)
    ell = np.asarray(ell, float)
    on_incline = np.minimum(ell, L)
    x = sx + on_incline * math.cos(th) + np.maximum(ell - L, 0.0)
    y = sy + on_incline * math.sin(th)
    return np.stack([x, y], axis=-1)


def rolling_ball_state(k: dict, t: np.ndarray, law: str, inertia: float) -> tuple[np.ndarray, np.ndarray]:
    """Centre ``[T, 2]`` and marker angle ``[T]`` of a ball of ``I = inertia m R²`` released at ``hold_s``: it rolls
    down the incline and on along the floor; the twin turns ``anti_spin_factor`` rad per radian rolled."""
    th = math.radians(k["incline_deg"])
    L = ball_incline_travel(k)
    s = np.maximum(np.asarray(t) - k["hold_s"], 0.0)
    a = k["g"] * k["px_per_m"] * math.sin(th) / (1 + inertia)
    t1 = math.sqrt(2 * L / a)
    ell = np.where(s <= t1, rolling_distance(s, th, inertia, k["g"]) * k["px_per_m"],
                   L + a * t1 * (s - t1))
    spin = k["anti_spin_factor"] if law == "anti" else 1.0
    return ball_path(k, ell), spin * ell / k["radius_px"]


def rolling_ball_frames(k: dict, width: int, height: int, style: Style | None, xy: np.ndarray,
                        phi: np.ndarray) -> Iterator[np.ndarray]:
    """The incline running into the floor and the striped ball at centres ``xy`` turned by ``phi``."""
    th = math.radians(k["incline_deg"])
    cx, cy = k["corner"]
    x0 = max(-5.0, cx - (k["incline_len_px"] + 60) * math.cos(th))
    y0 = cy - (cx - x0) * math.tan(th)
    scene = Scene(width, height, style).ground(cy)
    scene.ramp([(x0, y0), (cx, cy), (x0, cy)])
    color = tuple(k["color"])
    for (x, y), a in zip(xy, phi):
        yield scene.frame([Cylinder(float(x), float(y), k["radius_px"], color, angle=float(a))])


# ----------------------------------------------------------------------------- P6: blocks on a tilting board


def tilting_board_slides(k: dict, fps: float, duration: float, law: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fine-grid times, board angle (rad) and distances along the board ``[2, n]`` (px) of both blocks: the board
    tilts steadily; a block slides once the tilt reaches its onset angle (the twin's right block later)."""
    dt = 1.0 / (fps * 16)
    t = np.arange(0.0, duration + 2 * dt, dt)
    theta = np.radians(k["board_angle0_deg"] + np.minimum(k["tilt_rate_deg_s"] * t, k["max_tilt_deg"]))
    g = k["g"] * k["px_per_m"]
    onset = [math.radians(k["onset_angle_deg"])] * 2
    if law == "anti":
        onset[1] += math.radians(k["anti_onset_delta_deg"])
    mu_k = [k["mu_kinetic"], k["mu_kinetic"] if law == "true" else 0.8 * math.tan(onset[1])]
    (wl, _), (wr, _) = k["sizes_px"]
    s = np.array(k["s_px"], float)
    v = np.zeros(2)
    out = np.empty((2, len(t)))
    for i, th in enumerate(theta):
        for j in range(2):
            if th >= onset[j]:
                a = g * (math.sin(th) - mu_k[j] * math.cos(th))
                v[j] = max(0.0, v[j] + a * dt)
                s[j] -= v[j] * dt
        low_l = LIP[0] + wl / 2
        if s[0] <= low_l:
            s[0], v[0] = low_l, 0.0
        low_r = s[0] + (wl + wr) / 2
        if s[1] <= low_r:
            s[1], v[1] = low_r, min(v[1], v[0])
        out[:, i] = s
    return t, theta, out


def tilting_board_positions(k: dict, fps: float, duration: float, times: np.ndarray, law: str) -> dict[str, np.ndarray]:
    """Centres ``[T, 2]`` of ``block_left`` and ``block_right`` at ``times``."""
    t, theta, s = tilting_board_slides(k, fps, duration, law)
    th = np.interp(times, t, theta)
    hx, hy = k["hinge"]
    out = {}
    for j, oid in enumerate(("block_left", "block_right")):
        h = k["sizes_px"][j][1]
        sj = np.interp(times, t, s[j])
        out[oid] = np.stack([hx + sj * np.cos(th) - h / 2 * np.sin(th),
                             hy - sj * np.sin(th) - h / 2 * np.cos(th)], axis=1)
    return out


def tilting_board_frames(k: dict, width: int, height: int, style: Style, fps: float, duration: float,
                         times: np.ndarray, law: str) -> Iterator[np.ndarray]:
    """The hinged board with its stop lip tilting, the two blocks on it (``k``: P6's known)."""
    hx, hy = k["hinge"]
    L, tb = k["board_length_px"], k["board_thickness_px"]
    scene = Scene(width, height, style).ground(hy + tb + 14)
    scene.ramp([(hx - 14, hy + tb + 14), (hx + 14, hy + tb + 14), (hx, hy + tb / 2)])  # hinge stand
    board_col = tuple(int(c * 0.8) for c in style.ramp_color)
    pos = tilting_board_positions(k, fps, duration, times, law)
    t, theta, _ = tilting_board_slides(k, fps, duration, law)
    th = np.interp(times, t, theta)
    cols = [tuple(c) for c in k["colors"]]
    for i, a in enumerate(th):
        c, s_ = math.cos(a), math.sin(a)
        items = [Block(hx + L / 2 * c + tb / 2 * s_, hy - L / 2 * s_ + tb / 2 * c, L, tb, -a, board_col),
                 Block(hx + LIP[0] / 2 * c - LIP[1] / 2 * s_, hy - LIP[0] / 2 * s_ - LIP[1] / 2 * c,
                       LIP[0], LIP[1], -a, board_col)]
        for j, oid in enumerate(("block_left", "block_right")):
            w, h = k["sizes_px"][j]
            x, y = pos[oid][i]
            items.append(Block(float(x), float(y), w, h, -a, cols[j]))
        yield scene.frame(items)
