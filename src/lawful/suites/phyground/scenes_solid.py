"""Drawn PhyGround scenes of solid-body mechanics: falls, bounces, rolls, collisions, and material response.

Each scene is a :class:`~lawful.suites.phyground.scenes_common.Drawn`: a law-correct motion and an
anti-physics twin that starts from the same first frame and breaks the case's tagged laws.
"""

from __future__ import annotations

import numpy as np

from lawful.suites.phyground.scenes_common import (BLUE, G, G_PX, GREEN, GROUND, ORANGE, PX_PER_M, RED, STEEL,
                                                   Blob, Drawn, fall_time, linear_bounce)
from lawful.world.draw import Block, Sphere

def _px(m):
    return np.asarray(m) * PX_PER_M


def _bounce_y(h0_m: float, e: float, t: float, t_start: float = 0.0) -> float:
    """Height (px above the rest line) of a ball dropped at ``t_start`` from ``h0_m`` metres."""
    from lawful.world.physics import bounce_trajectory

    if t < t_start:
        return float(_px(h0_m))
    return float(_px(bounce_trajectory(h0_m, e, G, np.array([t - t_start]))[0]))


def _scene_ball_drop(t: float, law: str):
    r, x, y0 = 22.0, 320.0, 70.0
    rest = GROUND - r
    h0 = (rest - y0) / PX_PER_M
    if law == "true":
        y = rest - _bounce_y(h0, 0.65, t)
    else:  # falls at a constant slow speed and sinks through the floor
        y = y0 + (rest - y0) / 1.6 * t
    return [Sphere(x, y, r, RED)]


def _scene_ball_off_table(t: float, law: str):
    r, top, edge, x0 = 18.0, 190.0, 300.0, 90.0
    vx = 1.6  # m/s
    x = x0 + _px(vx * t)
    t_edge = (edge - x0) / _px(vx)
    if t <= t_edge:
        return [Sphere(x, top - r, r, RED)]
    s = t - t_edge
    if law == "true":
        drop = (GROUND - r) - (top - r)
        fall_t = np.sqrt(2 * (drop / PX_PER_M) / G)
        if s < fall_t:
            y = (top - r) + _px(0.5 * G * s * s)
        else:  # a low bounce after landing, then rolling on
            v_up, u = 0.35 * G * fall_t, s - fall_t  # leaves the floor at e = 0.35 of the impact speed
            y = (GROUND - r) - max(0.0, float(_px(v_up * u - 0.5 * G * u * u)))
        return [Sphere(x, y, r, RED)]
    hover = 0.45  # cartoon physics: keeps going level in mid-air, then drops straight down slowly
    if s < hover:
        return [Sphere(x, top - r, r, RED)]
    xs = edge + _px(vx * hover)
    y = min(GROUND - r, (top - r) + _px(1.2 * (s - hover)))
    return [Sphere(xs, y, r, RED)]


def _scene_head_on(t: float, law: str):
    r, xa0, xb0, v = 24.0, 90.0, 330.0, 1.2
    y = GROUND - r
    t_hit = (xb0 - 2 * r - xa0) / _px(v)
    if t < t_hit or law == "anti":  # anti: A passes straight through B, which never moves
        return [Sphere(xb0, y, r, ORANGE), Sphere(xa0 + _px(v * t), y, r, BLUE)]
    xa = xb0 - 2 * r
    return [Sphere(xb0 + _px(v * (t - t_hit)), y, r, ORANGE), Sphere(xa, y, r, BLUE)]


WALL = (470.0, 150.0, 510.0, GROUND)


def _scene_ball_wall(t: float, law: str):
    r, x0, v, e = 20.0, 80.0, 2.4, 0.6
    y = GROUND - r
    t_hit = (WALL[0] - r - x0) / _px(v)
    if t < t_hit or law == "anti":  # anti: rolls on through the wall
        return [Sphere(x0 + _px(v * t), y, r, RED)]
    return [Sphere(WALL[0] - r - _px(e * v * (t - t_hit)), y, r, RED)]


RAMP = ((30.0, 120.0), (260.0, GROUND), (30.0, GROUND))


def _scene_ramp_roll(t: float, law: str):
    r = 18.0
    (x0, y0), (x1, y1) = RAMP[0], RAMP[1]
    length = float(np.hypot(x1 - x0, y1 - y0))
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    nx, ny = uy, -ux  # surface normal pointing up-right (y down)
    sin_t = uy
    a = _px(5.0 / 7.0 * G * sin_t)  # rolling solid sphere, px/s²
    s_end = length - 10.0
    if law == "true":
        t_end = np.sqrt(2 * s_end / a)
        if t <= t_end:
            s = 0.5 * a * t * t
            return [Sphere(x0 + ux * s + nx * r + 10, y0 + uy * s + ny * r, r, GREEN)]
        v_end = a * t_end * ux  # horizontal part carries on
        xe = x0 + ux * s_end + nx * r + 10
        return [Sphere(xe + v_end * (t - t_end), GROUND - r, r, GREEN)]
    v = s_end / 1.2  # anti: slides at constant speed and stops dead at the bottom
    s = min(s_end, v * t)
    return [Sphere(x0 + ux * s + nx * r + 10, y0 + uy * s + ny * r, r, GREEN)]


BLOCK = (260.0, 220.0, 380.0, GROUND)


def _scene_drop_on_block(t: float, law: str):
    r, x, y0 = 20.0, 320.0, 40.0
    if law == "true":
        rest = BLOCK[1] - r
        y = rest - _bounce_y((rest - y0) / PX_PER_M, 0.55, t)
    else:  # falls through the block to the floor
        rest = GROUND - r
        y = rest - _bounce_y((rest - y0) / PX_PER_M, 0.55, t)
    return [Sphere(x, y, r, BLUE)]


# --- momentum: a heavy ball into a light one ---------------------------------------------------------
HEAVY, LIGHT, MASS_RATIO = 30.0, 15.0, 4.0  # radii (px) and m_heavy / m_light


def heavy_light_motion(t: float, law: str) -> dict:
    """Positions (px) and velocities (px/s) of the heavy and light ball; elastic 1-D collision when true
    (v1' = (M-1)/(M+1) v, v2' = 2M/(M+1) v with M the mass ratio), momentum not kept in the twin."""
    v, x1_0, x2_0 = 0.8 * PX_PER_M, 80.0, 330.0
    t_hit = (x2_0 - LIGHT - HEAVY - x1_0) / v
    if t < t_hit:
        return {"x": (x1_0 + v * t, x2_0), "v": (v, 0.0)}
    m = MASS_RATIO
    v1, v2 = ((m - 1) / (m + 1) * v, 2 * m / (m + 1) * v) if law == "true" else (-0.5 * v, 0.25 * v)
    s = t - t_hit
    return {"x": (x2_0 - LIGHT - HEAVY + v1 * s, x2_0 + v2 * s), "v": (v1, v2)}


def _scene_heavy_light(t: float, law: str):
    (x1, x2) = heavy_light_motion(t, law)["x"]
    return [Sphere(x2, GROUND - LIGHT, LIGHT, ORANGE), Sphere(x1, GROUND - HEAVY, HEAVY, STEEL)]


# --- material: rubber vs clay, a glass pane -------------------------------------------------------------
CLAY = (176, 92, 60)


def _squash(x: float, t: float, t_hit: float, r: float, color) -> Blob:
    """A ball of soft clay landing at ``t_hit``: it flattens within 0.1 s to a pancake of the same volume."""
    u = min(1.0, max(0.0, (t - t_hit) / 0.1))
    a, b = r * (1 + 0.5 * u), r * (1 - 0.55 * u)  # a² b stays about r³
    return Blob(x, GROUND - b, a, b, color)


def _scene_clay_rubber(t: float, law: str):
    r, y0, xs = 20.0, 70.0, (220.0, 420.0)  # rubber left, clay right
    h0 = GROUND - r - y0
    if law == "true":
        t_hit = fall_time(h0)
        rubber = Sphere(xs[0], GROUND - r - _bounce_y(h0 / PX_PER_M, 0.8, t), r, BLUE)
        clay = Sphere(xs[1], y0 + 0.5 * G_PX * t * t, r, CLAY) if t < t_hit else _squash(xs[1], t, t_hit, r, CLAY)
        return [rubber, clay]
    # anti: constant-speed fall; the rubber ball splats and the clay ball bounces like rubber
    rubber = Sphere(xs[0], y0 + h0 * t, r, BLUE) if t < 1.0 else _squash(xs[0], t, 1.0, r, BLUE)
    return [rubber, Sphere(xs[1], GROUND - r - linear_bounce(h0, 0.8, t), r, CLAY)]


PANE = (90.0, 14.0, (170, 205, 225))  # width, height, colour of the glass pane


def _shards(n: int = 7):
    rng = np.random.default_rng(7)
    return [(-PANE[0] / 2 + PANE[0] * (k + 0.5) / n, rng.uniform(-160, 160), rng.uniform(-240, -90),
             rng.uniform(8, 15), rng.uniform(5, 9), rng.uniform(-9, 9)) for k in range(n)]


def _scene_glass_pane(t: float, law: str):
    x, y0 = 320.0, 80.0
    w, h, col = PANE
    h0 = GROUND - h / 2 - y0
    t_hit = fall_time(h0)
    if t < t_hit:
        return [Block(x, y0 + 0.5 * G_PX * t * t, w, h, 0.0, col)]
    if law == "anti":  # stays whole and rebounds higher each time (e = 1.15): neither glass nor a real impact
        v, start, e = G_PX * t_hit * 1.15, t_hit, 1.15
        while t >= start + 2 * v / G_PX:
            start, v = start + 2 * v / G_PX, v * e
        u = t - start
        return [Block(x, GROUND - h / 2 - (v * u - 0.5 * G_PX * u * u), w, h, 0.0, col)]
    out = []
    for dx, vx, vy, sw, sh, spin in _shards():  # shards fly, land and slide to rest (friction 400 px/s²)
        s = t - t_hit
        rest_y = GROUND - sh / 2
        t_land = -2.0 * vy / G_PX  # back down to the floor it left
        if s < t_land:
            px, py = x + dx + vx * s, GROUND - sh / 2 + vy * s + 0.5 * G_PX * s * s
            ang = spin * s
        else:
            u = min(s - t_land, abs(vx) / 400.0)
            px = x + dx + vx * t_land + np.sign(vx) * (abs(vx) * u - 200.0 * u * u)
            py, ang = rest_y, 0.0
        out.append(Block(px, min(py, rest_y), sw, sh, ang, col))
    return out


def _setup_plain(scene):
    scene.ground(GROUND)


def _plain(items):
    return Drawn(_setup_plain, items)


SCENES: dict[str, Drawn] = {
    "ball_drop": _plain(_scene_ball_drop),
    "ball_off_table": Drawn(lambda s: (s.ground(GROUND), s.platform(0, 190, 300, GROUND)), _scene_ball_off_table),
    "head_on": _plain(_scene_head_on),
    "ball_wall": Drawn(lambda s: (s.ground(GROUND), s.platform(*WALL)), _scene_ball_wall),
    "ramp_roll": Drawn(lambda s: (s.ground(GROUND), s.ramp(list(RAMP))), _scene_ramp_roll),
    "drop_on_block": Drawn(lambda s: (s.ground(GROUND), s.platform(*BLOCK)), _scene_drop_on_block),
    "heavy_light": Drawn(_setup_plain, _scene_heavy_light, state=heavy_light_motion),
    "clay_rubber": _plain(_scene_clay_rubber),
    "glass_pane": _plain(_scene_glass_pane),
}
