"""Pivoting scenes: a rod pushes a tall spotted block over about its lower right edge (WMLE P10)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from lawful.world.appearance import Style
from lawful.world.draw import Block, Scene

ROD_COLOR = (128, 131, 136)
ROD_THICK = 10.0


def rot(phi: float | np.ndarray) -> np.ndarray:
    """Screen-clockwise rotation matrices ``[..., 2, 2]`` (image axes, y down)."""
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


@dataclass
class SpottedBlock(Block):
    """A block with a dark round spot at body offset ``(spot_dx, spot_dy)`` (px, before rotation).

    Painted with a soft light gradient and no dark edge (unlike :class:`Block`), so that the spot is
    the only part of the face far from the body's lightness: the tracker's marker angle is the
    direction from the centroid to such pixels. The spot is large so that stray pixels (a compressed
    edge against a dark floor) barely move that direction.
    """

    spot_dx: float = 0.0
    spot_dy: float = 0.0
    spot_r: float = 6.0

    def draw(self, img: np.ndarray, style: Style) -> None:
        x0, y0, x1, y1 = self.bbox()
        hgt, wid = img.shape[:2]
        c0, r0 = max(int(math.floor(x0)) - 2, 0), max(int(math.floor(y0)) - 2, 0)
        c1, r1 = min(int(math.ceil(x1)) + 3, wid), min(int(math.ceil(y1)) + 3, hgt)
        if c1 <= c0 or r1 <= r0:
            return
        dx = (np.arange(c0, c1, dtype=np.float32) - self.x)[None, :]
        dy = (np.arange(r0, r1, dtype=np.float32) - self.y)[:, None]
        c, s = math.cos(self.angle), math.sin(self.angle)
        qx, qy = c * dx + s * dy, -s * dx + c * dy  # body coordinates
        ex, ey = np.abs(qx) - self.w / 2, np.abs(qy) - self.h / 2
        d = np.sqrt(np.maximum(ex, 0) ** 2 + np.maximum(ey, 0) ** 2) + np.minimum(np.maximum(ex, ey), 0)
        alpha = np.clip(0.5 - d, 0.0, 1.0)[..., None]
        lx, ly = style.light_dir
        grad = (dx * lx + dy * ly) / (0.5 * math.hypot(self.w, self.h))
        intensity = 0.9 + 0.05 * grad
        col = np.asarray(self.color, np.float32) * intensity[..., None]
        ds = np.hypot(qx - self.spot_dx, qy - self.spot_dy)
        spot = np.clip(self.spot_r - ds + 0.5, 0.0, 1.0)[..., None]
        col = col * (1 - spot) + 0.3 * np.asarray(self.color, np.float32) * spot
        win = img[r0:r1, c0:c1].astype(np.float32)
        img[r0:r1, c0:c1] = np.clip(win * (1 - alpha) + col * alpha + 0.5, 0, 255).astype(np.uint8)


def tilt(k: dict, t: np.ndarray) -> np.ndarray:
    """Rotation φ (rad, clockwise) of the block at times ``t``: at rest until the rod reaches it, pushed
    at a steady rate past the tipping angle, then falling about its edge until it lies on its side."""
    t = np.asarray(t, float)
    w_rate = math.radians(k["push_rate_deg_s"])
    phi_tip = math.atan2(k["w_px"], k["h_px"])
    phi_push = math.radians(k["push_to_deg"])
    t_push_end = k["contact_s"] + phi_push / w_rate
    wn2 = 3.0 * k["g"] / (2.0 * k["diag_m"])  # psi'' = (3 g / 2 d) sin psi about the corner

    def fall(_, y):
        return (y[1], wn2 * math.sin(y[0]))

    def lands(_, y):
        return y[0] + phi_tip - math.pi / 2

    lands.terminal, lands.direction = True, 1
    sol = solve_ivp(fall, (0.0, 10.0), (phi_push - phi_tip, w_rate), events=lands, dense_output=True,
                    rtol=1e-9, atol=1e-12)
    t_land = float(sol.t_events[0][0])
    out = np.zeros_like(t)
    push = (t >= k["contact_s"]) & (t < t_push_end)
    out[push] = w_rate * (t[push] - k["contact_s"])
    falling = (t >= t_push_end) & (t < t_push_end + t_land)
    if falling.any():
        out[falling] = sol.sol(t[falling] - t_push_end)[0] + phi_tip
    out[t >= t_push_end + t_land] = math.pi / 2
    return out


def pivot_x(k: dict, phi: np.ndarray, law: str) -> np.ndarray:
    """Pivot column (px): fixed in the reference; sliding right as the block turns in the twin."""
    base = np.full_like(np.asarray(phi, float), k["pivot_x"])
    if law == "anti":
        base = base + k["anti_slide_fraction"] * k["diag_px"] * np.asarray(phi) / (math.pi / 2)
    return base


def block_pose(k: dict, phi: float, px: float) -> tuple[float, float]:
    """Block centre (px) for rotation ``phi`` about the lower right corner at ``(px, ground_y)``."""
    c = np.array([px, k["ground_y"]]) + rot(phi) @ np.array([-k["w_px"] / 2, -k["h_px"] / 2])
    return float(c[0]), float(c[1])


def rod_tip(k: dict, t: float, law: str) -> float:
    """Rod tip column (px): approaching at a steady speed, on the block's left face while pushing, then
    held where the push ended."""
    face0 = k["pivot_x"] - k["w_px"]
    if t < k["contact_s"]:
        return face0 - k["rod_speed_px_s"] * (k["contact_s"] - t)
    phi = min(math.radians(k["push_rate_deg_s"]) * (t - k["contact_s"]), math.radians(k["push_to_deg"]))
    P = np.array([float(pivot_x(k, np.array(phi), law)), k["ground_y"]])
    A = P + rot(phi) @ np.array([-k["w_px"], 0.0])
    B = P + rot(phi) @ np.array([-k["w_px"], -k["h_px"]])
    lam = (k["rod_y"] - A[1]) / (B[1] - A[1])
    return float(A[0] + lam * (B[0] - A[0]))


def pivot_block_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                       law: str) -> Iterator[np.ndarray]:
    """The floor, the rod and the spotted block turning about its edge (``k``: P10's known)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    phi = tilt(k, times)
    pxs = pivot_x(k, phi, law)
    dx, dy, sr = k["spot"]
    for i in range(len(times)):
        tip = rod_tip(k, float(times[i]), law)
        cx, cy = block_pose(k, float(phi[i]), float(pxs[i]))
        rod_len = tip + 30.0
        items = [Block(tip - rod_len / 2, k["rod_y"], rod_len, ROD_THICK, 0.0, ROD_COLOR),
                 SpottedBlock(cx, cy, k["w_px"], k["h_px"], float(phi[i]), tuple(k["color"]), dx, dy, sr)]
        yield scene.frame(items)
