"""Scene layout shared by the Principia tasks: canvas, case assembly, paths and motion profiles.

Pixels: x right, y down, first-frame coordinates of a 640 x 360 canvas. Every number a
render needs lives in ``case.known`` so :func:`render` is a pure function of the case.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.world.appearance import color_name, object_colors, style_variant  # noqa: F401  (color_name: sc.color_name)
from lawful.world.draw import Scene
from lawful.world.scenes.pairs import ANTI_FACTOR  # noqa: F401  (the twins' factor, shared with the studio)
from lawful.world.scenes.tents import Face, Polyline, tent, tent_polygon  # noqa: F401  (sc.Face, ...)

from lawful.suites.principia._common import FPS, HEIGHT, WIDTH

G = 9.81  # m/s^2



def rng_for(seed: int) -> np.random.Generator:
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, 0x9121])


def style_seed(index: int, seed: int) -> int | None:
    """Case 0 of every task uses the default look; the others an appearance variant from the seed."""
    return None if index == 0 else int(seed)


def colors(known: dict, k: int) -> list[tuple[int, int, int]]:
    return [tuple(c) for c in known["colors"][:k]]


def pick_colors(seed: int, k: int) -> list[list[int]]:
    return [list(c) for c in object_colors(seed, k)]


def frame_times(case: Case) -> np.ndarray:
    """Physical time (s) of every requested frame: frame ``i`` shows ``i * duration / n``."""
    n = case.n_frames
    return np.arange(n) * case.duration / n


def new_scene(known: dict) -> Scene:
    return Scene(WIDTH, HEIGHT, style_variant(known.get("style_seed")))


def render_frames(case: Case, scene: Scene, items_at: Callable[[int], list]) -> Iterator[np.ndarray]:
    """Yield ``case.n_frames`` frames: ``scene.frame(items_at(i))``."""
    for i in range(case.n_frames):
        yield scene.frame(items_at(i))


def box_of(item) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = item.bbox()
    return (round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2))


def spec(oid: str, shape: str, color: Sequence[int], item, **known: float) -> ObjectSpec:
    """An :class:`ObjectSpec` with the first-frame box of the drawn ``item``."""
    return ObjectSpec(id=oid, shape=shape, color=tuple(int(c) for c in color), box=box_of(item),
                      known={k: float(v) for k, v in known.items()})


def truth(t: np.ndarray, tracks: dict[str, tuple[np.ndarray, np.ndarray]], events: dict[str, float],
          quantities: dict[str, float]) -> GroundTruth:
    """Ground truth: centroid rows ``[t, x, y]`` per object (px), event times (s), true quantities."""
    rows = {
        oid: [(round(float(ti), 5), round(float(xi), 3), round(float(yi), 3)) for ti, xi, yi in zip(t, x, y)]
        for oid, (x, y) in tracks.items()
    }
    return GroundTruth(tracks=rows, events={k: round(float(v), 6) for k, v in events.items()},
                       quantities={k: float(v) for k, v in quantities.items()})


def make(task: str, index: int, seed: int, *, prompt: str, duration: float, objects: list[ObjectSpec],
         known: dict, assumptions: list[str], criteria: list[str], truth: GroundTruth | None = None) -> Case:
    """Assemble a Principia case (640 x 360, 24 fps)."""
    st = style_variant(known.get("style_seed"))
    return Case(id=f"{task}-{index:03d}", suite="principia", task=task, prompt=prompt, width=WIDTH, height=HEIGHT,
                fps=FPS, duration=duration, objects=objects, assumptions=assumptions, known=known,
                criteria=criteria, seed=int(seed), variant=st.name, truth=truth)


# ----------------------------------------------------------------------------- motion profiles


def accelerate_then_stop(t: np.ndarray, a: float, s_switch: float, stop_len: float) -> np.ndarray:
    """Distance (px) along a path: uniform acceleration ``a`` (px/s²) from rest until ``s_switch``,
    then uniform deceleration that stops it ``stop_len`` px further."""
    t = np.asarray(t, float)
    s = 0.5 * a * t * t
    t_sw = math.sqrt(2 * s_switch / a)
    v = a * t_sw
    d = v * v / (2 * stop_len)
    tau = np.clip(t - t_sw, 0.0, v / d)
    return np.where(t < t_sw, s, s_switch + v * tau - 0.5 * d * tau * tau)


def smoothstep(e0: float, e1: float, x) -> np.ndarray:
    x = np.clip((np.asarray(x, float) - e0) / (e1 - e0), 0.0, 1.0)
    return x * x * (3 - 2 * x)
