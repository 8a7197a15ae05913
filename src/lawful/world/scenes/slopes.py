"""Scenes on slopes: a block pushed up a rough incline (WMLE P11)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.world.appearance import Style
from lawful.world.draw import Block, Scene


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
