"""Electromagnetism scenes: a magnet and a block sliding down copper inclines (WMLE P29); a magnet sliding through a
coil wired to a two-lamp indicator (P30); two charged balls repelling on threads from one pivot (P31); two compasses
beside a current-carrying wire (P32); a closed and a split ring on energised coils (P33)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.world.appearance import Style
from lawful.world.draw import Block, Bob, Scene, String
from lawful.world.em import COPPER, RINGS, Coil, Compass, Led, Magnet, Ring, eddy_travel, jump_height, settle

LAMPS = ("entry", "exit")
LAMP_COLORS = {"entry": (40, 210, 70), "exit": (235, 60, 40)}
BALLS = ("left", "right")  # P31's charged balls
COMPASSES = ("left", "right")  # P32's compasses
G_EARTH = 9.81
SHIVER_S = 0.5  # P33: the split ring's slight lift and fall back (s)


def magnet_x(k: dict, t) -> np.ndarray:
    """Centre x (px) of the magnet at times ``t`` (s): at rest, then a smooth push to its stop."""
    u = np.clip((np.asarray(t, float) - k["t_go_s"]) / k["travel_s"], 0.0, 1.0)
    ease = u**3 * (10 - 15 * u + 6 * u * u)
    return k["x_start"] + (k["x_stop"] - k["x_start"]) * ease


def lamp_levels(k: dict, t, law: str = "true") -> dict[str, np.ndarray]:
    """Brightness (0–1) of each lamp: lit for ``flash_s`` from entry (leading end at the coil's entrance;
    law only) and from exit (trailing end past the coil's far end)."""
    t = np.asarray(t, float)
    lead, trail = magnet_x(k, t) + k["magnet_w"] / 2, magnet_x(k, t) - k["magnet_w"] / 2
    t_in = float(t[np.argmax(lead >= k["coil"][0])]) if (lead >= k["coil"][0]).any() else math.inf
    t_out = float(t[np.argmax(trail >= k["coil"][2])]) if (trail >= k["coil"][2]).any() else math.inf
    on = lambda t0: ((t >= t0) & (t < t0 + k["flash_s"])).astype(float)  # noqa: E731
    return {"entry": on(t_in) if law == "true" else np.zeros(len(t)), "exit": on(t_out)}


def magnet_item(k: dict, x: float) -> Magnet:
    """The bar magnet centred at ``x`` on the rail."""
    return Magnet(x, k["rail_y"], k["magnet_w"], k["magnet_h"], 0.0, tuple(k["color"]), north_first=k["north_leads"])


def coil_indicator_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                          law: str) -> Iterator[np.ndarray]:
    """Rail, coil on its stands, indicator box with leads; the magnet sliding and the lamps flashing."""
    scene = Scene(width, height, style).ground(k["rail_y"] + k["magnet_h"] / 2 + 34.0)
    c = k["coil"]
    ry = k["rail_y"] + k["magnet_h"] / 2
    scene.platform(c[0] - 200.0, ry, c[2] + 200.0, ry + 4.0, (120, 122, 128))  # the rail
    scene.platform(c[0] + 10, c[3], c[0] + 18, ry + 34.0)  # coil stands
    scene.platform(c[2] - 18, c[3], c[2] - 10, ry + 34.0)
    (xe, ye), (xx, yx) = k["lamps_xy"]["entry"], k["lamps_xy"]["exit"]
    scene.platform(xe - 16, ye - 14, xx + 16, ye + 14, (70, 72, 78))  # indicator box
    scene.marker_line((c[0] + 4, c[1]), (xe - 8, ye + 14), (150, 90, 50), 2)  # leads
    scene.marker_line((c[2] - 4, c[1]), (xx + 8, yx + 14), (150, 90, 50), 2)
    t = times
    x = magnet_x(k, t)
    lv = lamp_levels(k, t, law)
    coil = Coil(c[0], c[1], c[2], c[3], vertical=False, turns=k["turns"])
    r = k["lamp_r"]
    for i in range(len(t)):
        yield scene.frame([magnet_item(k, float(x[i])), coil,
                           *(Led(*k["lamps_xy"][n], r, LAMP_COLORS[n], float(lv[n][i])) for n in LAMPS)])


# ----------------------------------------------------------------------------- P31: charged balls


def ball_angles(k: dict, t, law: str = "true") -> dict[str, np.ndarray]:
    """Outward string angle (rad) of each ball (left, right) at times ``t`` (s): pushed apart at ``t_on_s``, settling
    at ``theta_eq_deg`` (the twin's ``anti_ball`` at ``anti_angle_factor`` times that)."""
    out = {}
    for b in BALLS:
        eq = k["theta_eq_deg"] * (k["anti_angle_factor"] if law == "anti" and b == k["anti_ball"] else 1.0)
        out[b] = np.radians(settle(t, k["t_on_s"], k["theta0_deg"], eq, k["period_s"], k["zeta"]))
    return out


def ball_xy(k: dict, b: str, theta) -> tuple[np.ndarray, np.ndarray]:
    """Centre (px) of ball ``b`` (left or right) hanging at outward angle ``theta`` (rad) from the pivot."""
    s = -1.0 if b == "left" else 1.0
    return k["pivot"][0] + s * k["length_px"] * np.sin(theta), k["pivot"][1] + k["length_px"] * np.cos(theta)


def charged_balls_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                         law: str) -> Iterator[np.ndarray]:
    """The bar, both threads and balls swinging apart to rest (``k``: P31's known)."""
    scene = Scene(width, height, style).ground(352.0)
    px, py = k["pivot"]
    scene.support(px - 90.0, px + 90.0, py)
    t = times
    th = ball_angles(k, t, law)
    pos = {b: ball_xy(k, b, th[b]) for b in BALLS}
    for i in range(len(t)):
        its = [String((px, py), (float(pos[b][0][i]), float(pos[b][1][i]))) for b in BALLS]
        its += [Bob(float(pos[b][0][i]), float(pos[b][1][i]), k["radius_px"], tuple(k["colors"][b])) for b in BALLS]
        yield scene.frame(its)


# ----------------------------------------------------------------------------- P32: compass needles


def needle_angles(k: dict, t, law: str = "true") -> dict[str, np.ndarray]:
    """North direction (rad, screen) of each needle (left, right) at times ``t`` (s): swinging from ``north_deg`` to
    ``final_deg`` once the current is on (the twin's both to the left one's)."""
    out = {}
    for b in BALLS:
        end = k["final_deg"]["left" if law == "anti" else b]
        start = k["north_deg"]
        delta = (end - start + 180.0) % 360.0 - 180.0
        out[b] = np.radians(settle(t, k["t_on_s"], start, start + delta, k["period_s"], k["zeta"]))
    return out


def dial_items(k: dict, ang: dict[str, float]) -> list:
    """The two compasses, needles at ``ang`` (rad)."""
    return [Compass(k["dials"][b][0], k["dials"][b][1], k["dial_r_px"], float(ang[b]), tuple(k["colors"][b]))
            for b in BALLS]


def compass_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                   law: str) -> Iterator[np.ndarray]:
    """Top view of the board, the wire's end and lead, and both compasses turning (``k``: P32's known)."""
    scene = Scene(width, height, style)
    wx, wy = k["wire"]
    scene.platform(24.0, 40.0, width - 24.0, height - 40.0)
    scene.marker_line((wx, 40.0), (wx, wy), COPPER, 3)  # the lead running off above the board
    scene.ramp([(wx - 5, wy - 5), (wx + 5, wy - 5), (wx + 5, wy + 5), (wx - 5, wy + 5)], COPPER)  # the wire's end
    t = times
    ang = needle_angles(k, t, law)
    for i in range(len(t)):
        yield scene.frame(dial_items(k, {b: float(ang[b][i]) for b in BALLS}))


# ----------------------------------------------------------------------------- P29: eddy braking


def eddy_lane(k: dict, i: int) -> dict:
    """Surface line of copper incline ``i``: apex, unit vector down the slope ``u``, outward normal ``n``."""
    th = math.radians(k["theta_deg"])
    x0 = k["lane_x"][i]
    apex = np.array([x0, k["ground_y"] - k["base_px"] - k["span_px"] * math.tan(th)])
    return {"apex": apex, "u": np.array([math.cos(th), math.sin(th)]), "n": np.array([math.sin(th), -math.cos(th)])}


def eddy_slid(k: dict, body: str, t, law: str = "true") -> np.ndarray:
    """Distance slid (px) by ``body`` at times ``t`` (s), stopped by the end block."""
    a = k["accel_px"]
    if body == "block":
        s = eddy_travel(t, a, None)
    elif law == "anti":
        s = eddy_travel(t, a * k["anti_accel_factor"], None)
    else:
        s = eddy_travel(t, a, k["tau_s"])
    return np.minimum(s, k["stop_px"])


def eddy_centre(k: dict, body: str, s: float) -> tuple[float, float]:
    """Centre of ``body`` (magnet or block) after sliding ``s`` px from its start."""
    g = eddy_lane(k, k["lanes"][body])
    p = g["apex"] + (k["start_px"] + s) * g["u"] + 0.5 * k["h_px"] * g["n"]
    return float(p[0]), float(p[1])


def eddy_items(k: dict, s_magnet: float, s_block: float) -> list:
    """The magnet and the block after sliding ``s_magnet`` / ``s_block`` px."""
    th = math.radians(k["theta_deg"])
    xm, ym = eddy_centre(k, "magnet", s_magnet)
    xb, yb = eddy_centre(k, "block", s_block)
    return [Magnet(xm, ym, k["w_px"], k["h_px"], th, tuple(k["colors"]["magnet"]), north_first=k["north_down"]),
            Block(xb, yb, k["w_px"], k["h_px"], th, tuple(k["colors"]["block"]))]


def eddy_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                law: str) -> Iterator[np.ndarray]:
    """Two copper inclines with end stops; the magnet and the block sliding down them."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    th = math.radians(k["theta_deg"])
    for i in (0, 1):
        x0 = k["lane_x"][i]
        top = k["ground_y"] - k["base_px"] - k["span_px"] * math.tan(th)
        scene.ramp([(x0, k["ground_y"]), (x0, top), (x0 + k["span_px"], k["ground_y"] - k["base_px"]),
                    (x0 + k["span_px"], k["ground_y"])], COPPER)
        g = eddy_lane(k, i)
        p = g["apex"] + (k["start_px"] + k["stop_px"] + 0.5 * k["w_px"]) * g["u"]
        hh = 1.3 * k["h_px"]
        scene.ramp([tuple(p), tuple(p + hh * g["n"]), tuple(p + hh * g["n"] + 8 * g["u"]), tuple(p + 8 * g["u"])])
    s = {b: eddy_slid(k, b, times, law) for b in ("magnet", "block")}
    for i in range(len(times)):
        yield scene.frame(eddy_items(k, float(s["magnet"][i]), float(s["block"][i])))


# ----------------------------------------------------------------------------- P33: jumping rings


def ring_items(k: dict, lift: dict[str, float]) -> list:
    """The two coils with their cores, and the rings lifted ``lift`` px (by ring) off their coils."""
    out = []
    for b in RINGS:
        c = k["coils"][b]
        top = k["ground_y"] - k["coil_h_px"]
        out.append(Coil(c - k["coil_w_px"] / 2, top, c + k["coil_w_px"] / 2, k["ground_y"], vertical=True,
                        turns=k["turns"], core_w=k["core_w_px"], core_to=top - k["core_len_px"]))
    for b in RINGS:
        x, y = ring_centre(k, b, lift[b])
        out.append(Ring(x, y, k["ring_d_px"], k["ring_h_px"], tuple(k["colors"][b]),
                        gap=k["gap_px"] if b == "split" else 0.0, gap_at=k["gap_at"]))
    return out


def ring_centre(k: dict, b: str, lift: float) -> tuple[float, float]:
    """Centre of ring ``b`` lifted ``lift`` px."""
    return float(k["coils"][b]), float(k["ground_y"] - k["coil_h_px"] - k["ring_h_px"] / 2 - lift)


def ring_lifts(k: dict, t, law: str = "true") -> dict[str, np.ndarray]:
    """Rise (px) of each ring at times ``t`` (s)."""
    g = G_EARTH * k["px_per_m"]
    closed = jump_height(t, k["t_on_s"], math.sqrt(2 * g * k["rise_px"]), g)
    if law == "anti":
        h = k["rise_px"] * k["anti_rise_factor"]
        return {"closed": closed, "split": jump_height(t, k["t_on_s"], math.sqrt(2 * g * h), g)}
    u = np.clip((np.asarray(t, float) - k["t_on_s"]) / SHIVER_S, 0.0, 1.0)  # a slight lift while the current sets in
    return {"closed": closed, "split": k["split_share"] * k["ring_d_px"] * np.sin(np.pi * u)}


def ring_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                law: str) -> Iterator[np.ndarray]:
    """Two upright coils with iron cores; the closed and the split ring jumping when the current is switched on."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    lf = ring_lifts(k, times, law)
    for i in range(len(times)):
        yield scene.frame(ring_items(k, {b: float(lf[b][i]) for b in RINGS}))
