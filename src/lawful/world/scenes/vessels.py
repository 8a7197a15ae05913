"""Liquid scenes: a ball dropped beside a glass of still liquid, the picture turned by the camera's tilt
(WMLE P23); spheres settling through glycerin (P38); an ice column settling afloat
(P22); liquid sloshing to one level in a U-tube (P21); water climbing two
capillary tubes (P37)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.world import liquids as lq
from lawful.world import matter
from lawful.world import melting as mt
from lawful.world import physics_more as pm
from lawful.world.appearance import Style
from lawful.world.draw import Scene, Sphere, String


def glass_beside_ball(rng: np.random.Generator, canvas_w: float, ground: float) -> tuple[list[float], float, float]:
    """P23's glass (``[x0, y0, x1, y1]`` on the canvas, on a random side), the ball's column and radius (px)."""
    vessel_left = bool(rng.integers(2))
    W_v = float(rng.integers(190, 231))
    r = float(rng.uniform(12, 15))
    x_ball = canvas_w / 2 + (1 if vessel_left else -1) * float(rng.uniform(60, 110))
    xv0 = (x_ball - 80 - W_v if vessel_left else x_ball + 80) + 0.5
    xv0 = float(np.round(xv0)) - 0.5
    return [xv0, 190.5, xv0 + W_v, ground - 3.5], x_ball, r


def dropped_ball_y(k: dict, t: np.ndarray, g: float) -> np.ndarray:
    """Canvas row of the ball held until ``hold_s``, then falling freely to the ground."""
    s = np.clip(t - k["hold_s"], 0.0, None)
    y0 = k["ball_canvas"][1]
    return np.minimum(y0 + 0.5 * g * k["px_per_m"] * s * s, k["ground_canvas"] - k["radius_px"])


def surface_gravity_frames(k: dict, width: int, height: int, style: Style | None, canvas: tuple[int, int],
                           times: np.ndarray, g: float, law: str) -> Iterator[np.ndarray]:
    """The glass (its surface tilted by ``anti_tilt_deg`` in the twin) and the falling ball, drawn upright on
    ``canvas`` and turned by ``rotation_deg`` into the ``width`` x ``height`` frame."""
    cw, ch = canvas
    x, y0 = k["ball_canvas"]
    r = k["radius_px"]
    bar_y = y0 - r - 14
    scene = Scene(cw, ch, style).ground(k["ground_canvas"]).support(x - 30, x + 30, bar_y)
    tank = lq.Tank([tuple(k["vessel_canvas"])], tuple(k["liquid"]), open_top=(0,), glass=tuple(k["glass"]))
    tilt = math.radians(k["anti_tilt_deg"]) if law == "anti" else 0.0
    base = tank.draw(scene.static_layer.copy(), {0: (k["surface_row_canvas"], tilt)})
    style = scene.style
    for ti, y in zip(times, dropped_ball_y(k, times, g)):
        img = base.copy()
        if ti < k["hold_s"]:
            String((x, bar_y), (x, float(y) - r)).draw(img, style)
        Sphere(x, float(y), r, tuple(k["color"])).draw(img, style)
        yield lq.rotate_frame(img, (width, height), k["rotation_deg"])


def surface_bands(M: np.ndarray, vessel, n_bands: int, half: float, height: int, margin: float = 10.0
                  ) -> list[list[float]]:
    """``n_bands`` axis-aligned (``2 half`` px wide) bands (output px) across the vessel's inside, each column band kept
    ``margin`` px inside the turned inside on every side and within the frame."""
    x0, y0, x1, y1 = vessel
    inv = np.linalg.inv(np.vstack([M, [0, 0, 1]]))[:2]
    ymid = 0.5 * (y0 + y1)
    out = []
    for xc in np.linspace(x0 + 22, x1 - 22, n_bands):
        u = float(np.round(lq.to_output(M, [(xc, ymid)])[0][0]))
        vs = np.arange(2.0, height - 2.0, 0.5)
        keep = np.ones(len(vs), bool)
        for du in (-half - 0.5, half + 0.5):
            p = lq.to_output(inv, np.stack([np.full(len(vs), u + du), vs], 1))
            keep &= ((p[:, 0] > x0 + margin) & (p[:, 0] < x1 - margin)
                     & (p[:, 1] > y0 + margin) & (p[:, 1] < y1 - margin))
        if keep.any():
            out.append([u - half, float(np.ceil(vs[keep].min())), u + half, float(np.floor(vs[keep].max()))])
    return out


# ----------------------------------------------------------------------------- P38: spheres settling in glycerin


def settling_y(k: dict, oid: str, t: np.ndarray, law: str) -> np.ndarray:
    """Centre row of ball ``oid`` held until ``hold_s``, then sinking (Stokes) to the tank's floor."""
    b = k["balls"][oid]
    v = b["v_px"] if law == "true" else b["anti_v_px"]
    y = k["start_y"] + pm.stokes_fall(np.asarray(t) - k["hold_s"], v, b["tau_s"])
    return np.minimum(y, k["tank"][3] - b["r_px"])


def viscous_settling_frames(k: dict, width: int, height: int, style: Style | None, seed: int, ids: tuple[str, ...],
                            times: np.ndarray, law: str) -> Iterator[np.ndarray]:
    """The glycerin tank and the balls ``ids`` sinking side by side."""
    scene = Scene(width, height, style).ground(k["tank"][3] + 8)
    base = scene.frame()
    x0, y0, x1, y1 = k["tank"]
    matter.Tank(x0, y0, x1, y1, k["fill_y"], seed=seed).draw(base, scene.style)
    t = times
    ys = {o: settling_y(k, o, t, law) for o in ids}
    color = tuple(k["color"])
    for i in range(len(t)):
        img = base.copy()
        for o in ids:
            b = k["balls"][o]
            Sphere(b["x"], float(ys[o][i]), b["r_px"], color, specular=0.35).draw(img, scene.style)
        yield img


# ----------------------------------------------------------------------------- P22: an ice column afloat


def floating_column_rows(k: dict, times: np.ndarray, law: str, draft: float) -> tuple[np.ndarray, np.ndarray]:
    """Waterline and ice-top rows at ``times``: the column bobs from ``release_fraction`` to ``draft`` of its
    height under water (the twin to ``anti_fraction``), displacing water that raises the waterline."""
    _, w_i, h_i = k["ice_box0"]
    f_end = draft if law == "true" else k["anti_fraction"]
    f0 = k["release_fraction"]
    f = f_end + lq.damped(times, f0 - f_end, k["period_s"], k["zeta"])
    d = f * h_i  # submerged depth; water displaced raises the waterline
    y_w = k["waterline_eq"] - k["area_ratio"] * (d - draft * h_i)
    return y_w, y_w + d - h_i


def floating_ice_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray, law: str,
                        draft: float) -> Iterator[np.ndarray]:
    """The glass of water and the ice column bobbing to rest (``k``: P22's known)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    xi0, w_i, h_i = k["ice_box0"]
    tank = lq.Tank([tuple(k["vessel"])], tuple(k["water"]), open_top=(0,), glass=tuple(k["glass"]),
                   extra_walls={0: [xi0, xi0 + w_i]})
    for y_w, top in zip(*floating_column_rows(k, times, law, draft)):
        ice = lq.draw_ice((xi0, float(top), xi0 + w_i, float(top) + h_i), float(y_w), tuple(k["water"]))
        yield tank.draw(scene.static_layer.copy(), {0: (float(y_w), 0.0)}, layers=(ice,))


def u_tube_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                  law: str) -> Iterator[np.ndarray]:
    """The U-tube with its liquid sloshing between the arms and calming (the twin's left level ends
    ``anti_offset_px`` above the right one)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    tank = lq.Tank([tuple(c) for c in k["cavities"]], tuple(k["liquid"]), open_top=(0, 1),
                   liquid_cavities=(2,), glass=tuple(k["glass"]))
    t = times
    yl, yr = lq.u_tube_levels(t, k["y_eq"], k["z0_left_px"], k["area_left"], k["area_right"], k["period_s"],
                              k["zeta"], offset=k["anti_offset_px"] if law == "anti" else 0.0)
    for a, b in zip(yl, yr):
        yield tank.draw(scene.static_layer.copy(), {0: (float(a), 0.0), 1: (float(b), 0.0)})


def capillary_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                     law: str) -> Iterator[np.ndarray]:
    """The basin and the narrow and wide tubes, water creeping up each to its Jurin height (swapped in
    the twin)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    tank = lq.Tank([tuple(k["cavity"])], tuple(k["liquid"]), open_top=(0,), glass=tuple(k["glass"]))
    t = times
    h = dict(k["h_px"])
    if law == "anti":
        h = {"narrow": h["wide"], "wide": h["narrow"]}
    rise = {a: mt.washburn_rise(t, h[a], k["tau_s"][a]) for a in ("narrow", "wide")}
    y_res = float(k["y_reservoir"])
    for i in range(len(t)):
        img = tank.draw(scene.static_layer.copy(), {0: (y_res, 0.0)})
        for a in ("narrow", "wide"):
            mt.draw_tube(img, tuple(k["bores"][a]), y_res - float(rise[a][i]), tuple(k["liquid"]),
                         tuple(k["glass"]))
        yield img
