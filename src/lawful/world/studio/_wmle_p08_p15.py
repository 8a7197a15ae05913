"""Helpers of the studio scenes of WMLE P8–P15: frame variants, camera framing, colours, seeds, marked bodies."""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass

import numpy as np

from lawful.world.studio import engine as E


@dataclass(frozen=True)
class Variant:
    """Frame size, how much of it the scene's region of interest fills, and whether a look-alike is placed."""

    name: str
    size: tuple[int, int]  # width, height
    fill: float
    distractor: bool = False


VARIANTS = (Variant("default", E.SIZES["default"], 0.82), Variant("hd-small", E.SIZES["hd"], 0.42),
            Variant("portrait", E.SIZES["portrait"], 0.86), Variant("832x480-lookalike", (832, 480), 0.78, True))


def variant_of(index: int) -> Variant:
    return VARIANTS[int(index) % len(VARIANTS)]


def scene_rng(seed: int, label: int, index: int) -> np.random.Generator:
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, int(label), int(index), 0x3E7E])


def stage_seed(seed: int, label: int, index: int) -> int:
    """The engine's look/effects seed of one scene (differs per task and index)."""
    return int(np.random.default_rng([int(seed) & 0xFFFFFFFF, int(label), int(index)]).integers(2**31))


PALETTE_HUES = (0.0, 0.08, 0.14, 0.33, 0.47, 0.58, 0.72, 0.86)  # red, orange, yellow, green, teal, blue, violet, pink


def _hue_gap(a: float, b: float) -> float:
    return min(abs(a - b), 1 - abs(a - b))


def scene_hues(look: E.Look) -> list[float]:
    """Hues of the look's backdrop and floor colours that are saturated enough to be confused with an object."""
    out = []
    for c in (*look.wall, *look.floor_rgb):
        h, s, v = colorsys.rgb_to_hsv(*c)
        if s > 0.2:
            out.append(h)
    return out


def object_rgbs(rng: np.random.Generator, k: int, min_sep: float = 0.2, avoid: list[float] = (),
                value: tuple[float, float] = (0.72, 0.88), hues=PALETTE_HUES) -> list[tuple[int, int, int]]:
    """``k`` saturated object colours whose hues differ by at least ``min_sep`` (fraction of the circle)
    and by 0.15 from the ``avoid`` hues (a backdrop of the object's own colour is a look-alike by chance,
    not a chosen distractor) where the palette allows."""
    out, chosen = [], []
    order = list(rng.permutation(hues))
    order.sort(key=lambda h: min([_hue_gap(h, a) for a in avoid] + [1.0]) < 0.15)  # stable: far hues first
    for h in order:
        h = float(h + rng.uniform(-0.015, 0.015)) % 1.0
        if all(_hue_gap(h, g) >= min_sep for g in chosen):
            chosen.append(h)
            v = max(value) if 0.1 < h < 0.2 else float(rng.uniform(*value))
            out.append(tuple(int(round(255 * c)) for c in colorsys.hsv_to_rgb(h, float(rng.uniform(0.75, 0.9)), v)))
        if len(out) == k:
            return out
    raise ValueError("palette too small")


def frame_camera(stage: E.Stage, rng: np.random.Generator, variant: Variant, lo, hi, depth_y: float = 0.0,
                 max_tilt_deg: float = 0.6, fovy: tuple[float, float] = (28.0, 42.0)) -> dict:
    """Place ``stage``'s camera in front (-y) of the plane ``y = depth_y`` so that the x–z rectangle
    ``[lo, hi]`` spans ``variant.fill`` of the frame on its tighter side, placed a little off-centre.

    Yaw and pitch stay within ``max_tilt_deg`` of facing the plane: the tasks measure lengths and angles
    in the image, which a tilted plane would foreshorten. Returns the camera's description.
    """
    W, H = variant.size
    fov = float(rng.uniform(*fovy))
    f = 0.5 * H / math.tan(math.radians(fov) / 2)
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    size = hi - lo
    dist = max(f * size[0] / (variant.fill * W), f * size[1] / (variant.fill * H))
    centre = 0.5 * (lo + hi)
    slack = (1 - variant.fill) * 0.35
    shift = np.array([rng.uniform(-slack, slack) * W, rng.uniform(-slack, slack) * H]) * dist / f
    yaw, pitch = (math.radians(float(rng.uniform(-max_tilt_deg, max_tilt_deg))) for _ in range(2))
    fwd = np.array([math.sin(yaw) * math.cos(pitch), math.cos(yaw) * math.cos(pitch), math.sin(pitch)])
    target = np.array([centre[0] - shift[0], depth_y, centre[1] + shift[1]])
    pos = target - dist * fwd
    stage.camera(pos=tuple(pos), lookat=tuple(target), fovy=fov)
    return {"pos": [round(float(v), 4) for v in pos], "lookat": [round(float(v), 4) for v in target],
            "fovy_deg": round(fov, 3), "distance_m": round(float(dist), 4)}


def frame_period(t: np.ndarray, a: np.ndarray) -> float | None:
    """Mean full period (s) of an oscillating signal ``a(t)`` from its upward zero crossings (interpolated)."""
    a = np.asarray(a, float)
    s = np.signbit(a)
    idx = np.flatnonzero(s[:-1] & ~s[1:])
    if len(idx) < 2:
        return None
    tc = t[idx] - a[idx] * (t[idx + 1] - t[idx]) / (a[idx + 1] - a[idx])
    return float(np.mean(np.diff(tc)))


# ----------------------------------------------------------------------------- bodies


def marked_ball(body: E.Body, r: float, rgb, stripe_rgb, obj: str, facing: float = -1.0) -> None:
    """A solid ball with a light stripe of beads from the pole facing the camera (-y) to near its rim.

    The beads sit just under the surface (their caps show), weigh nothing to speak of and never touch
    anything; only the ball geom is the watched object (its mask and colour).
    """
    body.geom(E.sphere(r), rgb=rgb, obj=obj, specular=0.45, density=1000)
    a = 0.16 * r
    for k, ang in enumerate(np.linspace(0.0, math.radians(78.0), 9)):
        p = (r - 0.2 * a) * np.array([math.sin(ang), facing * math.cos(ang), 0.0])
        body.geom(E.sphere(a), rgb=stripe_rgb, pos=tuple(p), specular=0.2, density=1, **E.NO_CONTACT)


def hoop(body: E.Body, R: float, rgb, stripe_rgb, obj: str, mass: float, k: float) -> None:
    """A thin-walled hoop (short hollow tube) of outer radius ``R`` seen end-on.

    Its front rim is a ring of capsules (the watched object, no contact; one light segment marks the
    turning) in the plane of the body's centre, so the rim moves in the image at the scale of a ball's
    centre beside it (a rim 0.3 R nearer the camera moved 0.9 % more at 4.9 m: P9's r_t -0.46 %); its
    inside is a dark disc of the rim's hue set back in the tube (the shaded inner wall, as lawful's own
    hollow cylinder is drawn). Rolling contact is an unseen sphere of radius ``R`` (geom group 3); the
    inertia is stated: ``k m R²`` about the rolling axis (y).
    """
    body.geom(E.sphere(R), rgb=(128, 128, 128), group=3, density=1)
    tube = 0.11 * R
    rc = R - tube
    N = 24
    for j in range(N):
        a0, a1 = 2 * math.pi * j / N, 2 * math.pi * (j + 1) / N
        p0 = (rc * math.cos(a0), 0.0, rc * math.sin(a0))
        p1 = (rc * math.cos(a1), 0.0, rc * math.sin(a1))
        body.geom(E.capsule(tube, p0, p1), rgb=stripe_rgb if j == 0 else rgb, obj=None if j == 0 else obj,
                  specular=0.5, density=1, **E.NO_CONTACT)
    dark = tuple(int(0.42 * c) for c in rgb)
    body.geom(E.cylinder(rc - 0.5 * tube, 0.002), rgb=dark, pos=(0.0, 0.4 * R, 0.0), euler=(90, 0, 0), specular=0.1,
              density=1, **E.NO_CONTACT)
    i_roll = k * mass * R * R
    i_diam = 0.51 * i_roll  # a flat ring has exactly half; a hair more keeps MuJoCo's triangle inequality strict
    body.parts.append(f'<inertial pos="0 0 0" mass="{mass:.6g}" '
                      f'diaginertia="{i_diam:.6g} {i_roll:.6g} {i_diam:.6g}"/>')


def mocap(st: E.Stage, name: str, pos, geoms: list[str]) -> None:
    """A kinematic (mocap) body whose geoms do collide (the engine's own mocap arms never touch anything)."""
    b = E.Body(st, name, pos, None, True)
    b.parts.extend(geoms)
    st.bodies.append(b)


def tilt(q: np.ndarray) -> float:
    """Rotation (rad) about +y of a free body's quaternion ``(w, x, y, z)``: positive tips its top towards +x."""
    return 2.0 * math.atan2(float(q[2]), float(q[0]))
