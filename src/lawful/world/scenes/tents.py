"""Ramp geometry shared by the Principia scenes: straight faces, tents standing on the floor, and
the two launch ramps back to back on a table (projectile), walked by arc length in pixels (y down)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lawful.world.draw import Scene, Sphere
from lawful.world.physics import projectile, rolling_distance

K_BALL = 0.4  # I / (m R²) of a solid ball
CENTRE_GAP = 4.0  # px between the two launch ramps' backs
STOP_PX = 14.0  # px a landed ball rolls before it stops


@dataclass(frozen=True)
class Polyline:
    """A path through ``points`` (px), walked by arc length."""

    points: tuple[tuple[float, float], ...]

    @property
    def cum(self) -> np.ndarray:
        p = np.asarray(self.points, float)
        return np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(p, axis=0).T))])

    @property
    def length(self) -> float:
        return float(self.cum[-1])

    def at(self, s) -> tuple[np.ndarray, np.ndarray]:
        """Points ``(x, y)`` at arc lengths ``s`` (extrapolated along the end segments)."""
        p = np.asarray(self.points, float)
        cum = self.cum
        s = np.asarray(s, float)
        k = np.clip(np.searchsorted(cum, s, side="right") - 1, 0, len(p) - 2)
        seg = p[k + 1] - p[k]
        f = (s - cum[k]) / np.maximum(cum[k + 1] - cum[k], 1e-12)
        return p[k, 0] + f * seg[..., 0], p[k, 1] + f * seg[..., 1]


@dataclass(frozen=True)
class Face:
    """One straight face of a ramp, from its top ``apex`` down to its ``foot`` (px)."""

    apex: tuple[float, float]
    foot: tuple[float, float]

    @property
    def length(self) -> float:
        return math.hypot(self.foot[0] - self.apex[0], self.foot[1] - self.apex[1])

    @property
    def u(self) -> np.ndarray:
        """Unit vector down the slope."""
        return (np.asarray(self.foot) - np.asarray(self.apex)) / self.length

    @property
    def n(self) -> np.ndarray:
        """Unit normal pointing out of the surface (upwards in the image)."""
        u = self.u
        n = np.array([u[1], -u[0]])
        return n if n[1] < 0 else -n

    @property
    def side(self) -> int:
        """+1 when the face runs down to the right, -1 to the left."""
        return 1 if self.foot[0] > self.apex[0] else -1

    @property
    def theta(self) -> float:
        """Incline angle (rad)."""
        return math.atan2(abs(self.foot[1] - self.apex[1]), abs(self.foot[0] - self.apex[0]))

    @property
    def draw_angle(self) -> float:
        """Screen angle (clockwise) of an object lying on the face."""
        return self.side * self.theta

    def point(self, s: float) -> np.ndarray:
        """Surface point ``s`` px down the slope from the apex."""
        return np.asarray(self.apex, float) + s * self.u

    def offset_path(self, d: float, start: float, floor_run: float) -> Polyline:
        """Path of a point held ``d`` px off the surface (a rolling centre), from surface arc ``start``
        down the face, round the concave foot onto the floor and ``floor_run`` px along it."""
        th = self.theta
        s_kink = self.length - d * math.tan(th / 2)  # offset line meets the offset floor line here
        p0 = self.point(start) + d * self.n
        p1 = self.point(s_kink) + d * self.n
        p2 = p1 + np.array([self.side * floor_run, 0.0])
        return Polyline((tuple(p0), tuple(p1), tuple(p2)))


def tent(apex_x: float, apex_y: float, foot_dx: float, ground_y: float) -> tuple[Face, Face]:
    """Left and right faces of a symmetric tent ramp standing on the floor."""
    return (Face((apex_x, apex_y), (apex_x - foot_dx, ground_y)), Face((apex_x, apex_y), (apex_x + foot_dx, ground_y)))


def tent_polygon(left: Face, right: Face) -> list[tuple[float, float]]:
    return [left.foot, left.apex, right.foot]


# ----------------------------------------------------------------------------- launch ramps on a table (projectile)


def launch_ramps(k: dict) -> list[Face]:
    """The two launch ramps' slopes: top at the table centre, foot at each table edge."""
    hw, ty = k["table_half_width"], k["table_y"]
    rise = (hw - CENTRE_GAP) * math.tan(k["theta"])
    return [Face((320 - CENTRE_GAP, ty - rise), (320 - hw, ty)), Face((320 + CENTRE_GAP, ty - rise), (320 + hw, ty))]


def launch_speed(k: dict, i: int) -> float:
    """Speed (px/s) at the table edge of ball ``i`` rolling from rest (``v² = 2 a d``)."""
    a = 2 * rolling_distance(1.0, k["theta"], K_BALL, k["g"]) * k["px_per_m"]
    return math.sqrt(2 * a * (launch_ramps(k)[i].length - k["start_s"][i]))


def launch_paths(k: dict, t: np.ndarray, law: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Centre ``(x, y)`` px of each ball at times ``t``: roll, fly, land and stop (``law='anti'``:
    the launch speeds of ``k['anti']['launch_speed_px']``)."""
    out = []
    r, g_px = k["radius_px"], k["g"] * k["px_per_m"]
    for i, face in enumerate(launch_ramps(k)):
        d = face.length - k["start_s"][i]  # px to roll before the edge
        v = k["anti"]["launch_speed_px"][i] if law == "anti" else launch_speed(k, i)
        a = v * v / (2 * d)
        t_edge = v / a
        s = np.minimum(0.5 * a * t * t, d)
        p0 = face.point(k["start_s"][i]) + r * face.n
        x, y = p0[0] + s * face.u[0], p0[1] + s * face.u[1]
        # flight from the edge, image y down: y = y0 + vy t + g t²/2
        x0, y0 = p0 + d * face.u
        vx, vy = v * face.u
        floor = k["ground_y"] - r
        t_fly = (-vy + math.sqrt(vy * vy + 2 * g_px * (floor - y0))) / g_px
        tau = np.clip(t - t_edge, 0.0, t_fly)
        fx, fy = projectile(tau, x0, -y0, vx, -vy, g_px)
        fly = t >= t_edge
        x, y = np.where(fly, fx, x), np.where(fly, -fy, y)
        # on the floor: the horizontal speed dies away over STOP_PX
        dec = vx * vx / (2 * STOP_PX)
        tau = np.clip(t - t_edge - t_fly, 0.0, abs(vx) / dec)
        land = t >= t_edge + t_fly
        x = np.where(land, x0 + vx * t_fly + np.sign(vx) * (abs(vx) * tau - 0.5 * dec * tau * tau), x)
        y = np.where(land, floor, y)
        out.append((x, y))
    return out


def launch_balls(k: dict, centres) -> list[Sphere]:
    """The balls drawn at ``centres`` (one ``(x, y)`` per ball), colours ``k['colors']``."""
    c = [tuple(x) for x in k["colors"][:2]]
    return [Sphere(float(x), float(y), k["radius_px"], c[i]) for i, (x, y) in enumerate(centres)]


def launch_table(scene: Scene, k: dict) -> Scene:
    """Floor, table (top and cabinet) and the two launch ramps, added to ``scene``."""
    scene.ground(k["ground_y"])
    hw = k["table_half_width"]
    scene.platform(320 - hw - 6, k["table_y"], 320 + hw + 6, k["table_y"] + 10)  # table top
    scene.platform(320 - hw + 6, k["table_y"] + 10, 320 + hw - 6, k["ground_y"])  # cabinet below
    for f in launch_ramps(k):
        scene.ramp([f.apex, f.foot, (f.apex[0], f.foot[1])])
    return scene
