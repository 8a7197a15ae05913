"""Shared set-up of the studio scenes of WMLE P1–P7 (``scenes_wmle_p01_p04`` and ``scenes_wmle_p05_p07``).

Every scene is built on :mod:`lawful.world.studio.engine`. The motion plane of these tasks is the
world plane ``y = 0``; the camera faces it square on (no yaw, no pitch: the image-space ratios the
tasks measure — heights over ranges, distance ratios, angles about a hinge — are then exactly the
world ones), but its distance, height, field of view and the place of the scene in the picture vary.
Variants by ``index % 4``: 640×360; 1920×1080 with the scene small in the frame; portrait 360×640;
640×360 with a similar-coloured distractor.
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lawful.world.studio import engine as E
from lawful.world.styles import StyledCase

FPS = 24.0


@dataclass(frozen=True)
class Variant:
    name: str
    size: tuple[int, int]
    fill: tuple[float, float]  # fraction of the frame the scene's region may span (min, max)
    distractor: bool = False


VARIANTS = (
    Variant("default", E.SIZES["default"], (0.78, 0.9)),
    Variant("hd-small", E.SIZES["hd"], (0.45, 0.6)),
    Variant("portrait", E.SIZES["portrait"], (0.8, 0.9)),
    Variant("distractor", E.SIZES["default"], (0.75, 0.88), distractor=True),
)


def variant_of(index: int) -> Variant:
    return VARIANTS[int(index) % len(VARIANTS)]


def rng_for(seed: int, label: int, index: int) -> np.random.Generator:
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, int(label), int(index), 0x1D07])


def stage_seed(seed: int, label: int, index: int) -> int:
    """Seed of the engine's look and camera effects: one per scene."""
    return int(np.random.default_rng([int(seed) & 0xFFFFFFFF, int(label), int(index)]).integers(1, 2**31 - 1))


def vivid(rng: np.random.Generator, k: int, min_hue_deg: float = 70.0, avoid: list[float] | None = None,
          avoid_deg: float = 60.0) -> list[tuple]:
    """``k`` saturated object colours (RGB 0-255) whose hues differ pairwise by ≥ ``min_hue_deg`` and from
    each hue in ``avoid`` (the backdrop's, see :func:`scene_hues`) by ≥ ``avoid_deg`` (both relax if needed)."""

    def dist(a: float, b: float) -> float:
        return min(abs(a - b), 360 - abs(a - b))

    out: list[tuple] = []
    got: list[float] = []
    for _ in range(2000):
        if len(out) == k:
            break
        h = float(rng.uniform(0, 360))
        if all(dist(h, g) >= min_hue_deg for g in got) and all(dist(h, a) >= avoid_deg for a in avoid or []):
            got.append(h)
            r, g, b = colorsys.hsv_to_rgb(h / 360, float(rng.uniform(0.75, 0.9)), float(rng.uniform(0.8, 0.92)))
            out.append((int(r * 255), int(g * 255), int(b * 255)))
        else:
            min_hue_deg *= 0.998
            avoid_deg *= 0.998
    return out


def scene_hues(st: E.Stage, min_saturation: float = 0.12) -> list[float]:
    """Hues of the stage's wall and floor colours that are saturated enough to be mistaken for an object."""
    lk = st.look
    out = []
    for c in (*lk.wall, *lk.floor_rgb):
        h, s, _ = colorsys.rgb_to_hsv(*c)
        if s >= min_saturation:
            out.append(360.0 * h)
    return out


def new_stage(seed: int, label: int, index: int) -> tuple[E.Stage, Variant]:
    v = variant_of(index)
    st = E.Stage(stage_seed(seed, label, index), width=v.size[0], height=v.size[1])
    return st, v


def frame_region(st: E.Stage, v: Variant, rng: np.random.Generator, lo, hi, backdrop_y: float | None = None,
                 floor: bool = True, slack=(1.0, 1.0)) -> None:
    """Camera square on to the plane ``y = 0`` whose view holds the world rectangle ``lo``–``hi`` (x, z).

    The rectangle spans ``v.fill`` of the frame along its tighter side and sits at a random place in
    the picture (``slack`` scales how far it may move from the centre, per axis); field of view 30–45°.
    Adds the floor and a backdrop behind the plane.
    """
    W, H = st.width, st.height
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    fovy = float(rng.uniform(30.0, 45.0))
    tan = math.tan(math.radians(fovy) / 2)
    fill = float(rng.uniform(*v.fill))
    ext = hi - lo
    # half extents seen at depth D: tan*D vertically, tan*D*W/H horizontally
    D = max(ext[0] / (2 * tan * W / H * fill), ext[1] / (2 * tan * fill))
    half = np.array([tan * D * W / H, tan * D])
    room = np.maximum(half - ext / 2, 0.0) * 0.8 * np.asarray(slack, float)
    c = 0.5 * (lo + hi) + rng.uniform(-1, 1, 2) * room
    if floor:  # an eye below the floor plane sees nothing; keep it above the region's bottom and the floor
        c[1] = max(c[1], min(0.5 * (lo[1] + hi[1]), max(lo[1], 0.0) + 0.1))
    st.camera(pos=(c[0], -D, c[1]), lookat=(c[0], 0.0, c[1]), fovy=fovy)
    if floor:
        st.floor()
    st.backdrop(y=backdrop_y if backdrop_y is not None else float(rng.uniform(0.8, 2.0)))


def styled(case, w: E.World, recs: dict[str, E.Recording], simulate_law: Callable[[str], E.Recording],
           first: np.ndarray | None = None) -> StyledCase:
    """A StyledCase whose first frame is frame 0 of the law-correct clip (anti recordings made lazily).

    For checks of the simulated physics it also carries ``world`` (the :class:`~engine.World`) and
    ``simulate(law, fps=FPS) -> Recording``.
    """
    if first is None:
        first = next(iter(w.render(recs["true"])))

    def render(law: str):
        if law not in ("true", "anti"):
            raise ValueError(f"law must be 'true' or 'anti', not {law!r}")
        if law not in recs:
            recs[law] = simulate_law(law)
        return w.render(recs[law])

    sc = StyledCase(case, first, render)
    sc.world, sc.simulate = w, simulate_law
    return sc


def r3(v) -> float:
    return round(float(v), 3)
