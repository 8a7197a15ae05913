"""Drawn PhyGround scenes of fluids: pouring, displacement, floating and sinking, a draining jet, a stream on
a block. Liquids use :mod:`lawful.world.liquids` (glass vessels with area-sampled levels and menisci).

The side view is treated as a 2-D slice: a volume is an area (px²), a stream's flux is its width times its
speed (so it thins as it speeds up), and a level moves by the area that enters or is displaced divided by
the vessel's inner width. Each ``*_state(t, law)`` returns what the frames show (levels, positions) so
tests can hold the pixels to it; the anti twins start from the same first frame.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.suites.phyground.scenes_common import (G_PX, GROUND, STEEL, STONE, WATER, WOOD, Drawn,
                                                   fall_time, fill_box, on_float, paint_box, paint_disc, paint_stream)
from lawful.world.liquids import Tank
from lawful.world.shapes import Block, String


def _ground(scene):
    scene.ground(GROUND)


def _tank(cavity) -> Tank:
    return Tank([cavity], WATER, wall=3.0, open_top=(0,))


def segment_below(yc: float, r: float, level: float) -> float:
    """Area (px²) of a disc of radius ``r`` centred at row ``yc`` lying below the row ``level`` (y down)."""
    h = min(max(yc + r - level, 0.0), 2 * r)
    return r * r * math.acos((r - h) / r) - (r - h) * math.sqrt(max(2 * r * h - h * h, 0.0))


def _flight(y0, vy, y_end, gravity=True) -> float:
    """Seconds for the stream's water to get from row ``y0`` (downward speed ``vy``) to row ``y_end``."""
    return fall_time(y_end - y0, vy) if gravity else (y_end - y0) / vy


def _stream_path(x0, y0, vx, vy, w0, y_end, gravity=True, n=24, t_max=math.inf):
    """Points and widths of a stream leaving ``(x0, y0)`` at ``(vx, vy)`` px/s, ``w0`` px wide, down to row
    ``y_end`` (or only its first ``t_max`` s of flight: a stream just turned on): a parabola whose width falls
    as its speed rises (flux kept), or, without gravity, a straight band of constant width."""
    g = G_PX if gravity else 0.0
    tau = min(_flight(y0, vy, y_end, gravity), t_max)
    s = np.linspace(0.0, tau, n)
    pts = np.stack([x0 + vx * s, y0 + vy * s + 0.5 * g * s * s], 1)
    speed = np.hypot(vx, vy + g * s)
    return pts, w0 * math.hypot(vx, vy) / speed


# --- pouring into a glass: flow dynamics, continuity, boundary interaction -----------------------------
POUR_GLASS, POUR_LEVEL0 = (380.0, 190.0, 500.0, 307.0), 296.0
SPOUT, SPOUT_V, SPOUT_W = (356.0, 131.0), (150.0, 180.0), 10.0  # spout on the jug's lip
POUR_TANK = _tank(POUR_GLASS)


def pour_state(t: float, law: str) -> dict:
    """The pour starts at 0 s; once the stream reaches the water (``arrive``) the level row rises by flux /
    inner width when true, and stays in the twin, whose water turns up in a puddle outside the glass."""
    q = SPOUT_W * math.hypot(*SPOUT_V)  # px² per s
    width = POUR_GLASS[2] - POUR_GLASS[0]
    arrive = _flight(SPOUT[1], SPOUT_V[1], POUR_LEVEL0, law == "true")
    wet = max(0.0, t - arrive)
    if law == "true":
        return {"level": POUR_LEVEL0 - q * wet / width, "flux": q, "puddle": 0.0, "arrive": arrive}
    return {"level": POUR_LEVEL0, "flux": q, "puddle": 60.0 * wet, "arrive": arrive}


def _paint_pour(img, t, law, scene=None):
    st = pour_state(t, law)
    POUR_TANK.draw(img, {0: (st["level"], 0.0)})
    pts, wid = _stream_path(*SPOUT, *SPOUT_V, SPOUT_W, st["level"], gravity=law == "true", t_max=t)

    def layer(f):
        paint_stream(f, pts, wid)
        if st["puddle"] > 0:  # water appearing outside an intact glass
            fill_box(f, (POUR_GLASS[2] + 3, GROUND - 5, POUR_GLASS[2] + 3 + st["puddle"], GROUND), WATER)
    on_float(img, layer, (SPOUT[0] - 10, SPOUT[1] - 10, 640, GROUND))


def _pitcher(t, law):
    return [Block(330.0, 120.0, 56.0, 40.0, 0.45, (200, 200, 208))]


# --- a stone block lowered into water: displacement, buoyancy ------------------------------------------
LB_GLASS, LB_LEVEL0, LB_BLOCK, LB_X = (250.0, 150.0, 390.0, 307.0), 230.0, (50.0, 60.0), 320.0
LB_RELEASE, LB_SPEED = 2.0, 90.0  # lowered at 90 px/s from bottom row 100, let go at 2 s


def displaced_level(level0: float, width: float, block_w: float, block_h: float, bottom: float) -> float:
    """Level row with a block (``block_w`` x ``block_h``, bottom at row ``bottom``) dipped into a vessel of inner
    ``width`` that held water up to ``level0``: the water's area is kept, so the rise Δ satisfies
    ``width·Δ = block_w·(submerged depth)``."""
    if bottom <= level0:
        return level0
    rise = block_w * (bottom - level0) / (width - block_w)  # partly submerged: depth = bottom - (level0 - Δ)
    if bottom - (level0 - rise) > block_h:
        rise = block_w * block_h / width  # wholly under
    return level0 - rise


def lower_state(t: float, law: str) -> dict:
    w, h = LB_BLOCK
    width = LB_GLASS[2] - LB_GLASS[0]
    b_rel = 100.0 + LB_SPEED * LB_RELEASE
    if t < LB_RELEASE:
        bottom = 100.0 + LB_SPEED * t
    elif law == "true":  # sinks: speed relaxes to 60 px/s (drag), stops on the glass floor
        s = t - LB_RELEASE
        bottom = min(LB_GLASS[3], b_rel + 60.0 * (s - 0.2 * (1 - math.exp(-s / 0.2))))
    else:  # the stone floats up until half of it is out of the water
        bottom = b_rel - (b_rel - (LB_LEVEL0 + h / 2)) * (1 - math.exp(-(t - LB_RELEASE) / 0.25))
    level = displaced_level(LB_LEVEL0, width, w, h, bottom) if law == "true" else LB_LEVEL0
    return {"bottom": bottom, "level": level, "held": t < LB_RELEASE}


LB_TANK = _tank(LB_GLASS)


def _paint_lower(img, t, law, scene=None):
    st = lower_state(t, law)
    w, h = LB_BLOCK
    LB_TANK.draw(img, {0: (st["level"], 0.0)})
    top = st["bottom"] - h
    box = (LB_X - w / 2, top, LB_X + w / 2, st["bottom"])
    on_float(img, lambda f: paint_box(f, box, STONE, st["level"]), box)
    end = top if st["held"] else min(top, 100.0 - h - 200.0 * (t - LB_RELEASE))
    if end > 0:
        String((LB_X, 0.0), (LB_X, end)).draw(img, None)


# --- a wooden block floats, a steel ball sinks: buoyancy, displacement, gravity -------------------------
FS_TANK_BOX, FS_LEVEL0 = (170.0, 170.0, 430.0, 307.0), 236.0
FS_WOOD, FS_WOOD_X, FS_BALL_R, FS_BALL_X, FS_START = (60.0, 40.0), 240.0, 16.0, 360.0, 110.0
FS_DRAFT = 0.6  # ρ_wood / ρ_water: the floating block's submerged share


def _wood_depth(s: float, v: float, d_eq: float, period=0.5, zeta=0.6) -> float:
    """Depth of the block's bottom under the surface ``s`` s after entering at ``v`` px/s: a damped
    oscillation about the floating depth ``d_eq`` starting at 0 with that speed."""
    w = 2 * math.pi / period
    wd, a = w * math.sqrt(1 - zeta * zeta), -d_eq
    b = (v + zeta * w * a) / wd
    return d_eq + math.exp(-zeta * w * s) * (a * math.cos(wd * s) + b * math.sin(wd * s))


def float_state(t: float, law: str) -> dict:
    ww, wh = FS_WOOD
    r, floor = FS_BALL_R, FS_TANK_BOX[3]
    drop = FS_LEVEL0 - FS_START
    if law == "true":
        t_in = fall_time(drop)
        v_in = G_PX * t_in
        if t < t_in:
            wood_b = ball_b = FS_START + 0.5 * G_PX * t * t
            depth = None
        else:
            s = t - t_in
            depth = _wood_depth(s, v_in, FS_DRAFT * wh)
            vt, tau = 150.0, 0.12  # the ball's speed relaxes to its terminal speed in water
            ball_b = min(floor, FS_LEVEL0 + vt * s + (v_in - vt) * tau * (1 - math.exp(-s / tau)))
    else:  # constant-speed fall; the wood sinks, the steel ball floats high; the level never moves
        ball_b = FS_START + drop / 0.8 * t if t < 0.8 else None
        wood_b = min(floor, FS_START + drop / 0.8 * t)
        if ball_b is None:
            ball_b = FS_LEVEL0 + 0.3 * 2 * r * (1 - math.exp(-(t - 0.8) / 0.15))
        return {"level": FS_LEVEL0, "wood_bottom": wood_b, "ball_bottom": ball_b}
    level = FS_LEVEL0
    for _ in range(30):  # the level depends on how deep the ball sits below it: settle it
        wood_b = FS_START + 0.5 * G_PX * t * t if depth is None else level + depth
        wood_sub = ww * min(max(wood_b - level, 0.0), wh)
        new = FS_LEVEL0 - (wood_sub + segment_below(ball_b - r, r, level)) / (FS_TANK_BOX[2] - FS_TANK_BOX[0])
        if abs(new - level) < 1e-9:
            break
        level = new
    return {"level": level, "wood_bottom": wood_b, "ball_bottom": ball_b}


FS_TANK = _tank(FS_TANK_BOX)


def _paint_float(img, t, law, scene=None):
    st = float_state(t, law)
    ww, wh = FS_WOOD
    FS_TANK.draw(img, {0: (st["level"], 0.0)})

    def layer(f):
        paint_box(f, (FS_WOOD_X - ww / 2, st["wood_bottom"] - wh, FS_WOOD_X + ww / 2, st["wood_bottom"]), WOOD,
                  st["level"])
        paint_disc(f, FS_BALL_X, st["ball_bottom"] - FS_BALL_R, FS_BALL_R, STEEL, st["level"])
    on_float(img, layer, (FS_WOOD_X - FS_WOOD[0], 0, FS_BALL_X + 2 * FS_BALL_R, GROUND))


# --- a tank draining through a hole: flow dynamics, continuity -----------------------------------------
JET_TANK_BOX, JET_HOLE_Y, JET_HOLE, JET_LEVEL0 = (120.0, 60.0, 220.0, 233.0), 222.0, 6.0, 70.0


def jet_state(t: float, law: str) -> dict:
    """Head over the hole h(t) = (√h0 − k t)², k = (a / W)·√(2g)/2 (Torricelli with volume kept), exit speed
    √(2 g h) px/s and the jet's range to the floor; the twin's level stays while its jet speeds up."""
    width = JET_TANK_BOX[2] - JET_TANK_BOX[0]
    h0 = JET_HOLE_Y - JET_LEVEL0
    if law == "true":
        k = JET_HOLE / width * math.sqrt(2 * G_PX) / 2
        h = max(math.sqrt(h0) - k * t, 0.0) ** 2
        v = math.sqrt(2 * G_PX * h)
    else:
        h, v = h0, math.sqrt(2 * G_PX * h0) * (1 + 0.2 * t)
    return {"level": JET_HOLE_Y - h, "speed": v, "range": v * fall_time(GROUND - JET_HOLE_Y)}


JET_TANK = _tank(JET_TANK_BOX)


def _paint_jet(img, t, law, scene=None):
    st = jet_state(t, law)
    JET_TANK.draw(img, {0: (st["level"], 0.0)})
    x0 = JET_TANK_BOX[2]
    pts, wid = _stream_path(x0, JET_HOLE_Y, st["speed"], 0.0, JET_HOLE, GROUND)

    def layer(f):
        fill_box(f, (x0, JET_HOLE_Y - JET_HOLE / 2, x0 + 3, JET_HOLE_Y + JET_HOLE / 2), WATER, 0.9)  # the hole
        paint_stream(f, pts, wid)
    on_float(img, layer, (x0 - 2, JET_HOLE_Y - 2 * JET_HOLE, 640, GROUND))


# --- a stream onto a block: boundary interaction, continuity -------------------------------------------
SB_BLOCK, SB_TAP, SB_V0, SB_W0 = (270.0, 200.0, 370.0, GROUND), (320.0, 36.0), 150.0, 8.0
SB_FILM, SB_SPREAD, SB_PUDDLE = 3.0, 200.0, 5.0  # film thickness, its spreading speed, puddle depth (px)


def stream_state(t: float, law: str) -> dict:
    """The stream's front, and per side the length of the puddle on the floor: the flux w0·v0 that arrives
    after the water has covered the block and run down its sides fills two puddles of depth ``SB_PUDDLE``."""
    x, y0 = SB_TAP
    front = y0 + SB_V0 * t + 0.5 * G_PX * t * t
    t_top = fall_time(SB_BLOCK[1] - y0, SB_V0)
    half = (SB_BLOCK[2] - SB_BLOCK[0]) / 2
    t_edge = t_top + half / SB_SPREAD
    t_floor = t_edge + fall_time(SB_BLOCK[3] - SB_BLOCK[1])
    q = SB_W0 * SB_V0
    if law == "true":
        puddle = max(0.0, t - t_floor) * q / (2 * SB_PUDDLE)
        return {"front": min(front, SB_BLOCK[1]), "t_top": t_top, "t_edge": t_edge, "t_floor": t_floor,
                "film": min(half, max(0.0, t - t_top) * SB_SPREAD), "puddle": puddle, "flux": q}
    return {"front": min(front, GROUND), "t_top": t_top, "t_edge": t_edge, "t_floor": t_floor, "film": 0.0,
            "puddle": 0.0, "flux": q}  # through the block, then gone


def _paint_stream_block(img, t, law, scene=None):
    st = stream_state(t, law)
    x, y0 = SB_TAP
    if st["front"] <= y0 + 0.5:
        return
    pts, wid = _stream_path(x, y0, 0.0, SB_V0, SB_W0, st["front"])
    x0, top, x1, _ = SB_BLOCK

    def layer(f):
        paint_stream(f, pts, wid)
        if st["film"] > 0:
            fill_box(f, (x - st["film"], top - SB_FILM, x + st["film"], top), WATER)
        if law == "true" and t > st["t_edge"]:  # sheets down both sides, their fronts falling from the edges
            low = min(GROUND, top + 0.5 * G_PX * (t - st["t_edge"]) ** 2)
            for a in (x0 - 2.0, x1):
                fill_box(f, (a, top - SB_FILM, a + 2.0, low), WATER)
        if st["puddle"] > 0:
            for a, b in ((x0 - st["puddle"], x0), (x1, x1 + st["puddle"])):
                fill_box(f, (a, GROUND - SB_PUDDLE, b, GROUND), WATER)
    on_float(img, layer, (x0 - st["puddle"] - 4, y0, x1 + st["puddle"] + 4, GROUND))


def _setup_stream_block(scene):
    scene.ground(GROUND)
    scene.platform(*SB_BLOCK)
    scene.platform(300.0, 18.0, 340.0, SB_TAP[1], (150, 152, 158))


SCENES: dict[str, Drawn] = {
    "pour_glass": Drawn(_ground, _pitcher, _paint_pour, pour_state),
    "lower_block": Drawn(_ground, lambda t, law: [], _paint_lower, lower_state),
    "float_sink": Drawn(_ground, lambda t, law: [], _paint_float, float_state),
    "tank_jet": Drawn(lambda s: (s.ground(GROUND), s.platform(100.0, 236.0, 240.0, GROUND)), lambda t, law: [],
                      _paint_jet, jet_state),
    "stream_block": Drawn(_setup_stream_block, lambda t, law: [], _paint_stream_block, stream_state),
}

__all__ = ["SCENES", "displaced_level", "segment_below"]
