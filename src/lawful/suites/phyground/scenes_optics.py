"""Drawn PhyGround scenes of optics: plane mirrors (an upright one and a mirror floor) and a lamp's cast shadow.

A mirror shows the scene flipped about its line: the frame's own static layer with the ball drawn in and
mirrored pixel for pixel, so a true image sits at ``2·x_m − x`` (or ``2·y_m − y``). The anti twin mirrors
a ball moving the other way, so its image moves *with* the object instead of against it; first frames
match. A lamp is a point light: a floor point is in shadow when its straight line to the lamp crosses the
ball (:func:`shadow_span`); the twin's shadow is flipped to the lamp's side.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.suites.phyground.scenes_common import (BLUE, G_PX, GROUND, H, RED, W, Drawn, Unlit, fall_time,
                                                   fill_box, linear_bounce, on_float)
from lawful.world.optics import draw_disc, draw_glow
from lawful.world.physics import bounce_trajectory

SILVER, FRAME, LAMP = (212, 218, 228), (70, 72, 78), (255, 226, 140)
REFLECTANCE = 0.75


def _mirror_into(img, scene, src_item, region, axis: str, line: float) -> None:
    """Fill ``region`` ``(x0, y0, x1, y1)`` (integer bounds) of ``img`` with the static layer plus ``src_item``
    mirrored about ``x = line`` (axis 'x') or ``y = line`` (axis 'y'), dimmed towards silver."""
    src = scene.static_layer.copy()
    src_item.draw(src, scene.style)
    x0, y0, x1, y1 = region
    if axis == "x":
        cols = np.clip(np.round(2 * line - np.arange(x0, x1)).astype(int), 0, W - 1)
        part = src[y0:y1][:, cols]
    else:
        rows = np.clip(np.round(2 * line - np.arange(y0, y1)).astype(int), 0, H - 1)
        part = src[rows][:, x0:x1]
    img[y0:y1, x0:x1] = np.clip(REFLECTANCE * part + (1 - REFLECTANCE) * np.asarray(SILVER) + 0.5, 0, 255
                                ).astype(np.uint8)


def _frame_lines(img, region, sides) -> None:
    x0, y0, x1, y1 = region
    for side in sides:
        if side == "left":
            img[y0:y1, x0:x0 + 2] = FRAME
        elif side == "right":
            img[y0:y1, x1 - 2:x1] = FRAME
        elif side == "top":
            img[y0:y0 + 2, x0:x1] = FRAME


# --- a ball rolling towards an upright mirror: reflection, inertia --------------------------------------
MR_X, MR_REGION, MR_R, MR_X0, MR_V, MR_DECEL = 430.0, (430, 130, 620, H), 18.0, 290.0, 45.0, 6.0


def mirror_roll_state(t: float, law: str) -> dict:
    """The ball's x (rolling, slowed slightly by rolling friction; the twin halts for 0.8 s for no reason) and its
    image's x: ``2·x_m − x`` when true, moving with the ball in the twin."""
    x_true = MR_X0 + MR_V * t - 0.5 * MR_DECEL * t * t
    if law == "true":
        return {"x": x_true, "image_x": 2 * MR_X - x_true, "source_x": x_true}
    x = MR_X0 + MR_V * min(t, 1.2) + MR_V * max(0.0, t - 2.0)
    return {"x": x, "image_x": 2 * MR_X - MR_X0 + (x - MR_X0), "source_x": 2 * MR_X0 - x}


def _mr_items(t, law):
    return [Unlit(mirror_roll_state(t, law)["x"], GROUND - MR_R, MR_R, RED)]


def _mr_paint(img, t, law, scene):
    st = mirror_roll_state(t, law)
    _mirror_into(img, scene, Unlit(st["source_x"], GROUND - MR_R, MR_R, RED), MR_REGION, "x", MR_X)
    _frame_lines(img, MR_REGION, ("left", "right", "top"))


# --- a ball dropped above a mirror floor: reflection, gravity, collision --------------------------------
MD_FLOOR, MD_REGION, MD_X, MD_Y0, MD_R, MD_E = 200.0, (140, 200, 500, H), 320.0, 110.0, 20.0, 0.6


def mirror_drop_state(t: float, law: str) -> dict:
    """Ball centre row (bounces with e = 0.6 when true; the twin falls at constant speed and stops dead) and its
    image's row ``2·y_m − y`` (the twin's image moves down as the ball does)."""
    rest = MD_FLOOR - MD_R
    h0 = rest - MD_Y0
    if law == "true":
        y = rest - float(bounce_trajectory(h0, MD_E, G_PX, np.array([t]))[0])
        return {"y": y, "image_y": 2 * MD_FLOOR - y, "source_y": y}
    y = MD_Y0 + min(h0, h0 * t)
    return {"y": y, "image_y": 2 * MD_FLOOR - MD_Y0 + (y - MD_Y0), "source_y": 2 * MD_Y0 - y}


def _md_paint(img, t, law, scene):
    st = mirror_drop_state(t, law)
    _mirror_into(img, scene, Unlit(MD_X, st["source_y"], MD_R, BLUE), MD_REGION, "y", MD_FLOOR)


# --- a lamp and a ball: shadow -------------------------------------------------------------------------
def shadow_span(lamp, x: float, y: float, r: float, floor: float = GROUND, step: float = 0.125):
    """``(x_start, x_end)`` of the floor row ``floor`` hidden from the point ``lamp`` by a disc at ``(x, y)``
    (radius ``r``), found on a ``step`` px grid; None when nothing is hidden."""
    xs = np.arange(0.0, W, step)
    # a floor point is hidden when its segment to the lamp passes within r of the disc's centre
    dx, dy = lamp[0] - xs, lamp[1] - floor
    s = np.clip(((x - xs) * dx + (y - floor) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
    hit = xs[np.hypot(xs + s * dx - x, floor + s * dy - y) <= r]
    return (float(hit.min()), float(hit.max())) if hit.size else None


def _paint_shadow(img, span, strength: float = 0.6) -> None:
    """The shadow on the floor: a dark band over ``span`` on the floor's top 8 rows (the floor seen at a
    grazing angle)."""
    if span is not None:
        box = (span[0], GROUND, span[1], GROUND + 8.0)
        on_float(img, lambda f: fill_box(f, box, (40, 38, 36), strength), box)


LAMP_ON = 0.25  # s: the lamp is switched on just after the first frame (the twins share that frame)


def _paint_lamp(img, lamp, t: float) -> None:
    if t < LAMP_ON:
        draw_disc(img, *lamp, 8.0, (150, 150, 140))
        return
    draw_glow(img, *lamp, 22.0, LAMP, 0.55)
    draw_disc(img, *lamp, 8.0, LAMP)


LR_LAMP, LR_R, LR_X0, LR_V, LR_DECEL = (90.0, 70.0), 20.0, 200.0, 120.0, 10.0


def lamp_roll_state(t: float, law: str) -> dict:
    """The rolling ball's x (steady, slowed a little by rolling friction; the twin surges and lags for no
    reason) and the floor span its shadow covers (away from the lamp; flipped towards it in the twin)."""
    x = LR_X0 + LR_V * t - 0.5 * LR_DECEL * t * t + (0.0 if law == "true" else 45.0 * math.sin(2 * math.pi * t / 1.5))
    span = shadow_span(LR_LAMP, x, GROUND - LR_R, LR_R) if t >= LAMP_ON else None
    if law != "true" and span is not None:
        span = (2 * x - span[1], 2 * x - span[0])
    return {"x": x, "shadow": span}


def _lamp_setup(lamp):
    def setup(scene):
        scene.ground(GROUND)
        scene.platform(lamp[0] - 3, lamp[1] + 6, lamp[0] + 3, GROUND, (120, 122, 128))
    return setup


def _lr_paint(img, t, law, scene=None):
    _paint_shadow(img, lamp_roll_state(t, law)["shadow"])
    _paint_lamp(img, LR_LAMP, t)


LD_LAMP, LD_X, LD_Y0, LD_R, LD_E = (560.0, 60.0), 300.0, 70.0, 20.0, 0.5


def lamp_drop_state(t: float, law: str) -> dict:
    """The dropped ball's centre row (falls under g and bounces when true; constant speed in the twin) and the
    floor span its shadow covers (it slides towards the ball's foot as the ball falls)."""
    h0 = GROUND - LD_R - LD_Y0
    if law == "true":
        y = GROUND - LD_R - float(bounce_trajectory(h0, LD_E, G_PX, np.array([t]))[0])
    else:
        y = GROUND - LD_R - linear_bounce(h0, LD_E, t, fall_time(h0))
    span = shadow_span(LD_LAMP, LD_X, y, LD_R) if t >= LAMP_ON else None
    if law != "true" and span is not None:
        span = (2 * LD_X - span[1], 2 * LD_X - span[0])
    return {"y": y, "shadow": span}


def _ld_paint(img, t, law, scene=None):
    _paint_shadow(img, lamp_drop_state(t, law)["shadow"])
    _paint_lamp(img, LD_LAMP, t)



def _md_items(t, law):
    return [Unlit(MD_X, mirror_drop_state(t, law)["y"], MD_R, BLUE)]


def _lr_items(t, law):
    return [Unlit(lamp_roll_state(t, law)["x"], GROUND - LR_R, LR_R, RED)]


def _ld_items(t, law):
    return [Unlit(LD_X, lamp_drop_state(t, law)["y"], LD_R, BLUE)]


SCENES: dict[str, Drawn] = {
    "mirror_roll": Drawn(lambda s: s.ground(GROUND), _mr_items, _mr_paint, mirror_roll_state),
    "mirror_drop": Drawn(lambda s: s.ground(MD_FLOOR), _md_items, _md_paint, mirror_drop_state),
    "lamp_roll": Drawn(_lamp_setup(LR_LAMP), _lr_items, _lr_paint, lamp_roll_state),
    "lamp_drop": Drawn(_lamp_setup(LD_LAMP), _ld_items, _ld_paint, lamp_drop_state),
}
