"""Ice scenes: a block melting afloat in a glass of water (WMLE P25), one holding a stone that sinks when
freed (P26); equal masses of crushed ice and one block melting in two jars (P28); a freshwater block melting in
brine (P27); water freezing and expanding in a jar (P24)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.world import liquids as lq
from lawful.world import melting as mt
from lawful.world.appearance import Style
from lawful.world.draw import Scene

DRAFT = 0.917  # share of a floating ice block below the waterline (ice / water density)
SIDES = ("crushed", "intact")
EXPANSION = mt.freezing_expansion()  # 1000/917: P24's ice column over the water it froze from
WATER_TINTS = ((70, 130, 200), (60, 140, 185), (85, 120, 205))  # P24's water colours
STONE = (62, 56, 52)  # P26's pebble
P28_WATER = (110, 165, 215)
SEEN_THROUGH = 0.55  # P27: share of the ice's own colour where it is under water
PILE = (4, 3)  # crushed pieces drawn: columns × layers (the rest of the N pieces lie behind them)


def melt_fractions(t, t0: float, speed: float, s_piece: float, s_block: float, law: str = "true"):
    """Melted shares ``[T]`` of the crushed ice and the block (edges receding at ``speed`` px/s from ``t0``);
    the twin's block melts like the crushed ice."""
    f_c = mt.melted_fraction(np.asarray(t, float) - t0, [s_piece], speed)
    f_b = f_c if law == "anti" else mt.melted_fraction(np.asarray(t, float) - t0, [s_block], speed)
    return f_c, f_b


def crushed_vs_intact_layout(rng: np.random.Generator) -> dict:
    """P28's jars (crushed side drawn at random), probe bands beside the ice, water, ice and melt numbers."""
    crushed_left = bool(rng.integers(2))
    W = float(rng.integers(130, 151))
    gap = float(rng.uniform(60, 100))
    xl = float(np.round(320 - W - gap / 2 + rng.uniform(-30, 30))) + 0.5
    y_b, y_top = 300.5, float(rng.uniform(120, 140)) + 0.5
    s_block = float(rng.uniform(60, 70))
    n_pieces = int(PILE[0] * PILE[1] * 4)  # 48 pieces: 12 in view, the rest behind
    s_piece = s_block / n_pieces ** (1 / 3)
    speed = s_piece / float(rng.uniform(2.6, 3.2))  # the pieces are gone in about 3 s
    t0 = float(rng.uniform(0.3, 0.5))
    h0 = float(rng.uniform(20, 26))
    rise = float(rng.uniform(40, 55))  # meltwater of all the ice over the cross-section (px)
    cav = {}
    for s, x0 in zip(SIDES if crushed_left else SIDES[::-1], (xl, xl + W + gap)):
        cav[s] = [x0, y_top, x0 + W, y_b]
    foot = {"crushed": PILE[0] * s_piece, "intact": s_block}
    bands = {}
    for s in SIDES:
        x0, _, x1, _ = cav[s]
        xc = 0.5 * (x0 + x1)
        y0, y1 = y_b - h0 - rise - 22.0, y_b - 3.0
        bands[s] = {"left": [x0 + 7.0, y0, xc - 0.5 * max(foot.values()) - 6.0, y1],
                    "right": [xc + 0.5 * max(foot.values()) + 6.0, y0, x1 - 7.0, y1]}
    glass = tuple(int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-18, 18), 0, 255))
    return {"vessels": cav, "bands": bands, "ground_y": y_b + 5.0, "water_px": h0, "rise_px": rise,
            "edge_px": {"crushed": s_piece, "intact": s_block}, "pieces": n_pieces, "edge_speed_px_s": speed,
            "melt_start_s": t0, "water": list(P28_WATER), "glass": list(glass)}


def crushed_vs_intact_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                             law: str) -> Iterator[np.ndarray]:
    """Two jars of water, a heap of pieces in one and a block in the other, melting as the levels rise."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    cav = [tuple(k["vessels"][s]) for s in SIDES]
    tank = lq.Tank(cav, tuple(k["water"]), open_top=(0, 1), glass=tuple(k["glass"]))
    t = times
    e = k["edge_px"]
    f_c, f_b = melt_fractions(t, k["melt_start_s"], k["edge_speed_px_s"], e["crushed"], e["intact"], law)
    for i in range(len(t)):
        rows, layers = {}, []
        for j, (s, f, s0) in enumerate(zip(SIDES, (f_c[i], f_b[i]), (e["crushed"], e["intact"]))):
            x0, _, x1, y_b = k["vessels"][s]
            row = y_b - k["water_px"] - f * k["rise_px"]
            rows[j] = (float(row), 0.0)
            edge = s0 * (1.0 - f) ** (1.0 / 3.0)
            xc = 0.5 * (x0 + x1)
            if s == "intact":
                boxes = [(xc - edge / 2, y_b - edge, xc + edge / 2, y_b)]
            else:  # a heap: layer r holds PILE[0] − r pieces, each resting on the two below it
                nx, ny = PILE
                boxes = [(xc + (c - (nx - r) / 2) * s0 + (s0 - edge) / 2, y_b - (r + 1) * edge,
                          xc + (c - (nx - r) / 2) * s0 + (s0 + edge) / 2, y_b - r * edge)
                         for r in range(ny) for c in range(nx - r)]
            layers.append(mt.draw_pieces(boxes if edge > 0.3 else [], row, k["water"]))
        yield tank.draw(scene.static_layer.copy(), rows, layers=layers)


# ----------------------------------------------------------------------------- P25, P26: a block melting afloat


def melting_layout(rng: np.random.Generator) -> dict:
    """Glass, water, floating ice block and probe boxes shared by P25 and P26, drawn from ``rng``."""
    W_v = float(rng.integers(240, 281))
    xv0 = float(np.round(320 - W_v / 2 + rng.uniform(-50, 50))) - 0.5
    vessel = [xv0, 59.5, xv0 + W_v, 321.5]
    side0 = float(rng.uniform(62, 76))
    xc = xv0 + W_v / 2 + float(rng.uniform(-8, 8))
    y_w = float(rng.uniform(175, 195))
    tint = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
    water = [int(0.45 * c + 0.55 * 235) for c in tint]
    glass = [int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-18, 10), 0, 255)]
    m = 9.0
    half = side0 / 2
    return {"vessel": vessel, "ice_side0": side0, "ice_x": xc, "waterline0": y_w, "water": water,
            "glass": glass, "ground_y": vessel[3] + 3.5, "wall_color": list(lq.WALL), "ice_color": list(lq.ICE),
            "bands": {"water_left": [xv0 + m, vessel[1] + 4, xc - half - m, vessel[3] - 4],
                      "water_right": [xc + half + m, vessel[1] + 4, xv0 + W_v - m, vessel[3] - 4]},
            "ice": [xc - half - 6, y_w - 30, xc + half + 6, y_w + side0 + 4],
            "walls": [xv0 - 12, y_w + 40, xv0 + W_v + 12, y_w + 56]}


def melting_tank(k: dict, width: int, height: int, style: Style | None) -> tuple[Scene, lq.Tank]:
    """The scene and the glass of water (``k``: :func:`melting_layout`'s numbers)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    return scene, lq.Tank([tuple(k["vessel"])], tuple(k["water"]), open_top=(0,), glass=tuple(k["glass"]),
                          wall_color=tuple(k["wall_color"]))


def melting_frame(scene: Scene, tank: lq.Tank, k: dict, y_w: float, side: float, extra=()) -> np.ndarray:
    """The tank at waterline ``y_w`` with the ice block of edge ``side`` floating at draft ``DRAFT``."""
    layers = list(extra)
    if side > 0.5:
        top = y_w - (1 - DRAFT) * side
        box = (k["ice_x"] - side / 2, top, k["ice_x"] + side / 2, top + side)
        layers.insert(0, lq.draw_ice(box, y_w, tuple(k["water"])))
    return tank.draw(scene.static_layer.copy(), {0: (y_w, 0.0)}, layers=layers)


def fresh_melt_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                      law: str) -> Iterator[np.ndarray]:
    """The block melting away; the level stays (the twin's rises by ``anti_rise_px`` as it melts)."""
    scene, tank = melting_tank(k, width, height, style)
    t = times
    side = lq.melt_side(t, k["ice_side0"], k["melt_start_s"], k["melt_end_s"])
    melted = 1 - (side / k["ice_side0"]) ** 3
    y_w = k["waterline0"] - (k["anti_rise_px"] if law == "anti" else 0.0) * melted
    for yw, s in zip(y_w, side):
        yield melting_frame(scene, tank, k, float(yw), float(s))


def stone_melt_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                      law: str) -> Iterator[np.ndarray]:
    """P26: the block with a stone frozen in it melting afloat; the freed stone sinks and the level falls by
    ``level_drop_px`` (the twin's rises by ``anti_rise_px``)."""
    scene, tank = melting_tank(k, width, height, style)
    t = times
    side = lq.melt_side(t, k["ice_side0"], k["melt_start_s"], k["melt_end_s"])
    r = k["stone_r"]
    free = np.flatnonzero(side < 2.4 * r)
    t_rel = float(t[free[0]]) if len(free) else float(t[-1])
    ease = np.clip((t - t_rel) / 0.5, 0, 1)
    ease = ease * ease * (3 - 2 * ease)
    change = -k["level_drop_px"] if law == "true" else k["anti_rise_px"]
    y_w = k["waterline0"] - change * ease  # a drop in level is a larger row
    floor = k["vessel"][3] - r - 0.5
    for ti, yw, s, e in zip(t, y_w, side, ease):
        held = ti < t_rel
        top = yw - (1 - DRAFT) * s
        cy = top + 0.5 * s if held else None
        if held:
            stone = lq.draw_stone(k["ice_x"], float(cy), r, STONE, veil=tuple(k["ice_color"]), veil_share=0.35)
        else:
            y0 = yw - (1 - DRAFT) * 2.4 * r + 1.2 * r
            fall = np.clip((ti - t_rel) / 0.6, 0, 1) ** 2
            stone = lq.draw_stone(k["ice_x"], float(y0 + (floor - y0) * fall), r, STONE,
                                  veil=tuple(k["water"]), veil_share=0.3)
        yield melting_frame(scene, tank, k, float(yw), float(s) if held or s > 0.5 else 0.0, extra=(stone,))


# ----------------------------------------------------------------------------- P27: ice melting in brine


def brine_layout(rng: np.random.Generator) -> dict:
    """P27's tank of brine, the floating freshwater block, the melt times and probe boxes, drawn from ``rng``."""
    W = float(rng.integers(170, 201))
    x0 = float(np.round(320 - W / 2 + rng.uniform(-50, 50))) + 0.5
    x1 = x0 + W
    y_b, y_top = 300.5, 90.5
    y_s = float(rng.uniform(175, 190))
    w_i, h_i = float(rng.uniform(95, 115)), float(rng.uniform(85, 105))
    depth_share = float(rng.uniform(0.85, 0.95))  # the block's depth over the tank's
    rho_s = float(rng.uniform(*mt.RHO_BRINE_RANGE))
    rise = mt.melt_level_change(lq.RHO_ICE * w_i * h_i * depth_share, W, lq.RHO_WATER, rho_s)
    xi = 0.5 * (x0 + x1) + float(rng.uniform(-5, 5))
    t0 = float(rng.uniform(0.6, 0.8))
    t1 = t0 + float(rng.uniform(3.2, 3.6))
    brine = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
    glass = tuple(int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-18, 18), 0, 255))
    bands = {"left": [x0 + 8.0, y_s - 30.0, xi - w_i / 2 - 6.0, y_s + 30.0],
             "right": [xi + w_i / 2 + 6.0, y_s - 30.0, x1 - 8.0, y_s + 30.0]}
    return {"level_bands": bands, "ice_region": [x0 + 3.0, y_s + 16.0, x1 - 3.0, y_b - 3.0],
            "ice": [round(SEEN_THROUGH * a + (1 - SEEN_THROUGH) * b) for a, b in zip(lq.ICE, brine)], "bottom_y": y_b,
            "cavity": [x0, y_top, x1, y_b], "ground_y": y_b + 5.0, "y_surface": y_s, "ice_size_px": [w_i, h_i],
            "ice_x": xi, "rho_salt": rho_s, "depth_share": depth_share, "rise_px": rise, "melt_s": [t0, t1],
            "brine": list(brine), "glass": list(glass)}


def brine_melt_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray, law: str,
                      seen_through: float) -> Iterator[np.ndarray]:
    """The tank of brine and the floating block melting with clear streaks; the level rises by ``rise_px``
    (the twin's falls or stays, ``anti_mode``)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    x0, y_top, x1, y_b = k["cavity"]
    brine = tuple(k["brine"])
    tank = lq.Tank([(x0, y_top, x1, y_b)], brine, open_top=(0,), glass=tuple(k["glass"]))
    t = times
    t0, t1 = k["melt_s"]
    f = mt.melted_fraction(t - t0, [1.0], 1.0 / (t1 - t0))  # a cube's edge receding at a constant speed
    sign = {"true": 1.0}.get(law, {"falls": -1.0, "stays": 0.0}[k["anti_mode"]])
    w_i, h_i = k["ice_size_px"]
    draft = lq.RHO_ICE / k["rho_salt"]
    light = tuple(0.55 * np.asarray(brine, float) + 0.45 * 255.0)
    for i, fi in enumerate(f):
        row = k["y_surface"] - sign * fi * k["rise_px"]
        s = (1.0 - fi) ** (1.0 / 3.0)
        w, h = w_i * s, h_i * s
        box = (k["ice_x"] - w / 2, row - h * (1 - draft), k["ice_x"] + w / 2, row + h * draft)
        streak = float(np.clip(4 * fi * (1 - fi), 0, 1)) if fi < 1 else 0.0
        layers = (mt.mixing_streaks(k["ice_x"] - w_i / 2 + 6, k["ice_x"] + w_i / 2 - 6, row + h * draft,
                                    y_b - 4.0, streak, 0.8 * t[i], light),
                  mt.draw_pieces([box] if s > 0.02 else [], row, brine, seen_through=seen_through))
        yield tank.draw(scene.static_layer.copy(), {0: (float(row), 0.0)}, layers=layers)


# ----------------------------------------------------------------------------- P24: freezing expansion


def freezing_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray, law: str,
                    expansion: float) -> Iterator[np.ndarray]:
    """Water in a jar freezing from ``freeze_s``: the column grows by ``expansion`` (the twin's does not) and
    turns to ice."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    x0, y_top, x1, y_b = k["cavity"]
    f = mt.freeze_fraction(times, *k["freeze_s"])
    grow = 0.0 if law == "anti" else expansion - 1.0
    water, ice = np.asarray(k["water"], float), np.asarray(lq.ICE, float)
    for fi in f:
        row = y_b - k["h_water_px"] * (1.0 + grow * fi)
        color = tuple(float(v) for v in (1 - fi) * water + fi * ice)
        tank = lq.Tank([(x0, y_top, x1, y_b)], color, open_top=(0,), glass=tuple(k["glass"]),
                       meniscus_px=lq.MENISCUS_PX * (1 - fi))
        tex = mt.ice_texture((x0, row, x1, y_b), float(fi), k["texture_seed"])
        yield tank.draw(scene.static_layer.copy(), {0: (float(row), 0.0)}, layers=(tex,))
