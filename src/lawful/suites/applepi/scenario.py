"""The model of an Apple-π scenario: bodies, formula labels, motion, and the piecewise-motion helpers
the ten task builders (:mod:`lawful.suites.applepi.scenes`) share.

World frame: metres, ``x`` right, ``y`` up, floor at ``y = 0``; bodies move in the plane
``z = 0`` seen side-on by a fixed camera. Every scenario has a law-correct motion
(``law="true"``) and an anti-physics twin (``law="anti"``) used by the counterfactual model.

A :class:`Scenario` evaluates ``motion(law, t)`` for an array of times ``t`` ``[K]`` and
returns centre positions ``[K, N, 2]`` (m), velocities ``[K, N, 2]`` (m/s) and on-screen
angles ``[K, N]`` (radians, clockwise) for its ``N`` bodies.

Objects are only spheres, cubes (cuboids), cylinders (seen end-on) and cones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

G = 9.81

PILLARS: dict[str, tuple[str, ...]] = {
    "UniversalGravitation": ("FreeFall", "ProjectileMotion", "InclinedPlane", "CircularMotion"),
    "ConservationOfMomentum": ("PerfectlyElasticCollision", "PerfectlyInelasticCollision", "InelasticCollision"),
    "NewtonsFirstLaw": ("AtRest", "UniformLinearMotion"),
    "MultiLaw": ("Composition",),
}
TASKS: tuple[str, ...] = tuple(t for ts in PILLARS.values() for t in ts)
PILLAR_OF: dict[str, str] = {t: p for p, ts in PILLARS.items() for t in ts}

# Saturated object colours, none of them orange (orange is reserved for velocity arrows).
BODY_COLORS: dict[str, tuple[int, int, int]] = {
    "Red": (215, 35, 40),
    "Blue": (40, 85, 225),
    "Green": (35, 170, 60),
    "Purple": (135, 50, 200),
    "Cyan": (15, 175, 200),
    "Magenta": (215, 40, 165),
}

Motion = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]


@dataclass
class Body:
    """A dynamic object. ``width``/``height`` in metres: sphere/cylinder diameter, cube sides, cone base × height."""

    id: str
    name: str
    shape: str  # sphere | cube | cylinder | cone
    width: float
    height: float
    mass: float
    color: tuple[int, int, int]
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def half_height(self) -> float:
        return self.height / 2


@dataclass
class Formula:
    """The governing law as text, three wrong alternatives, and the law with the annotated values substituted."""

    correct: str
    distractors: list[str]
    substituted: str


@dataclass
class Scenario:
    """One simulated case in world units; rendering and annotation live elsewhere."""

    task: str
    bodies: list[Body]
    motions: dict[str, Motion]
    duration: float
    formula: Formula
    env_labels: dict[str, str] = field(default_factory=dict)
    ground_labels: dict[str, str] = field(default_factory=dict)
    scene_labels: list[tuple[str, tuple[float, float]]] = field(default_factory=list)  # text at a world point
    ramps: list[list[tuple[float, float]]] = field(default_factory=list)  # world polygons
    platforms: list[tuple[float, float, float, float]] = field(default_factory=list)  # x0, y0, x1, y1 (world)
    loops: list[tuple[float, float, float]] = field(default_factory=list)  # centre x, centre y, radius of track
    events: list[tuple[str, float]] = field(default_factory=list)  # law-correct events (name, t)
    anti_description: str = ""
    params: dict[str, float] = field(default_factory=dict)

    @property
    def pillar(self) -> str:
        return PILLAR_OF[self.task]

    def motion(self, law: str, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = np.atleast_1d(np.asarray(t, dtype=np.float64))
        return self.motions[law](t)

    def extent(self) -> tuple[float, float, float, float]:
        """World box ``(x0, y0, x1, y1)`` holding the static geometry and the true motion of every body."""
        t = np.linspace(0.0, self.duration, 241)
        pos, _, _ = self.motion("true", t)
        xs, ys = [], []
        for i, b in enumerate(self.bodies):
            r = 0.5 * math.hypot(b.width, b.height)
            xs += [pos[:, i, 0].min() - r, pos[:, i, 0].max() + r]
            ys += [pos[:, i, 1].min() - r, pos[:, i, 1].max() + r]
        for poly in self.ramps:
            xs += [p[0] for p in poly]
            ys += [p[1] for p in poly]
        for x0, y0, x1, y1 in self.platforms:
            xs += [x0, x1]
            ys += [y0, y1]
        for cx, cy, r in self.loops:
            xs += [cx - r * 1.1, cx + r * 1.1]
            ys += [cy - r * 1.1, cy + r * 1.1]
        return min(xs), min(0.0, min(ys)), max(xs), max(ys)

    def annotation(self) -> str:
        """The metadata ``annotation`` string: environment / ground / each body's labels."""
        parts = []
        if self.env_labels:
            parts.append("Environment: " + ", ".join(f"{k} = {v}" for k, v in self.env_labels.items()))
        if self.ground_labels:
            parts.append("Ground: " + ", ".join(f"{k} = {v}" for k, v in self.ground_labels.items()))
        for text, _ in self.scene_labels:
            parts.append("Scene: " + text)
        for b in self.bodies:
            if b.labels:
                parts.append(f"{b.name}: " + ", ".join(f"{k} = {v}" for k, v in b.labels.items()))
        return " / ".join(parts)



# --- piecewise motion helpers --------------------------------------------------------------
def fmt(v: float, nd: int = 2) -> str:
    s = f"{v:.{nd}f}".rstrip("0").rstrip(".")
    return s if "." in s else s + ".0"


def bouncing(y0: float, v0: float, g: float, e: float, floor: float, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Height and vertical velocity of a centre starting at ``y0`` with ``v0`` (up +), bouncing on ``floor``.

    Each impact reverses the velocity scaled by ``e``; below 0.05 m/s rebound the body stays on the floor.
    Returns ``(y [K], vy [K], impact_times)``.
    """
    y = np.full_like(t, floor)
    vy = np.zeros_like(t)
    ts, ys, vs = 0.0, float(y0), float(v0)
    impacts: list[float] = []
    for _ in range(40):
        disc = vs * vs + 2 * g * (ys - floor)
        tau = (vs + math.sqrt(max(disc, 0.0))) / g
        sel = (t >= ts) & (t < ts + tau)
        dt = t[sel] - ts
        y[sel] = ys + vs * dt - 0.5 * g * dt * dt
        vy[sel] = vs - g * dt
        ts += tau
        impacts.append(ts)
        v_rebound = -e * (vs - g * tau)
        if v_rebound < 0.05:
            break
        ys, vs = floor, v_rebound
    return y, vy, impacts


def collide(v1: float, v2: float, m1: float, m2: float, rule: str, e: float) -> tuple[float, float]:
    """Velocities after a head-on collision: ``restitution`` (with ``e``), ``stick`` or ``exchange`` (anti)."""
    if rule == "exchange":
        return v2, v1
    if rule == "stick":
        e = 0.0
    p = m1 * v1 + m2 * v2
    return (p + m2 * e * (v2 - v1)) / (m1 + m2), (p + m1 * e * (v1 - v2)) / (m1 + m2)


def pair_on_floor(xa, va, xb, vb, a: Body, b: Body, rule: str, e: float, t: np.ndarray, start: float = 0.0):
    """1-D positions/velocities of two sliding bodies that collide once; returns (xa, va, xb, vb, t_collision)."""
    gap = (xb - xa) - (a.width + b.width) / 2
    closing = va - vb
    tc = start + gap / closing if closing > 0 and gap >= 0 else math.inf
    va2, vb2 = collide(va, vb, a.mass, b.mass, rule, e)
    before = t < tc
    dt = t - start
    dtc = t - tc
    xa_t = np.where(before, xa + va * dt, xa + va * (tc - start) + va2 * dtc)
    xb_t = np.where(before, xb + vb * dt, xb + vb * (tc - start) + vb2 * dtc)
    return xa_t, np.where(before, va, va2), xb_t, np.where(before, vb, vb2), tc


def stack_bodies(xs: list[np.ndarray], ys: list[np.ndarray], vxs, vys, angles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pos = np.stack([np.stack([x, y], -1) for x, y in zip(xs, ys)], 1)
    vel = np.stack([np.stack([x, y], -1) for x, y in zip(vxs, vys)], 1)
    ang = np.stack(angles, 1)
    return pos, vel, ang


def random_body(rng: np.random.Generator, idx: int, shapes: tuple[str, ...], color_names: list[str], size=(0.3, 0.44),
          mass=(0.5, 3.0)) -> Body:
    shape = str(rng.choice(shapes))
    d = round(float(rng.uniform(*size)), 2)
    cname = color_names[idx]
    h = d if shape in ("sphere", "cube", "cylinder") else round(d * float(rng.uniform(1.1, 1.4)), 2)
    m = round(float(rng.uniform(*mass)), 1)
    label_size = {"sphere": "d", "cylinder": "d", "cone": "d", "cube": "s"}[shape]
    return Body(id=f"obj_{idx + 1}", name=f"{cname}{shape.capitalize()}", shape=shape, width=d, height=h, mass=m,
                color=BODY_COLORS[cname], labels={label_size: fmt(d), "m": fmt(m, 1)})


def choose_colors(rng: np.random.Generator, k: int) -> list[str]:
    names = list(BODY_COLORS)
    return [names[i] for i in rng.permutation(len(names))[:k]]


def discriminative_time(scenario: "Scenario", step: float = 0.125, margin: float = 0.17,
                        window: tuple[float, float] = (0.25, 0.75)) -> float:
    """The grid time in ``window`` (fractions of the duration), away from events, where the true and
    anti-physics states differ most (summed centre distance); used as the target time t*."""
    d = scenario.duration
    cands = [t for t in np.arange(step, d, step) if window[0] * d - 1e-9 <= t <= window[1] * d + 1e-9
             and all(abs(t - te) >= margin for _, te in scenario.events)]
    if not cands:
        return pick_times(d, scenario.events, (0.6,))[0]
    cands = np.array(cands)
    pt, _, _ = scenario.motion("true", cands)
    pa, _, _ = scenario.motion("anti", cands)
    gap = np.linalg.norm(pt - pa, axis=-1).sum(-1)
    return round(float(cands[int(np.argmax(gap))]), 3)


def pick_times(duration: float, events: list[tuple[str, float]], fractions: tuple[float, ...],
               step: float = 0.125, margin: float = 0.17) -> list[float]:
    """Times near ``fractions`` of ``duration`` on a ``step`` grid, at least ``margin`` s from every event.

    Keeps velocity estimates away from impacts and collisions; the grid makes ``t * 24`` an integer.
    """
    grid = np.arange(step, duration - step / 2 + 1e-9, step)
    ok = [float(g) for g in grid if all(abs(g - te) >= margin for _, te in events)]
    if not ok:
        ok = [float(g) for g in grid]
    chosen: list[float] = []
    for f in fractions:
        cands = sorted(ok, key=lambda g: (abs(g - f * duration), g))
        for c in cands:
            if c not in chosen:
                chosen.append(c)
                break
    return sorted(round(c, 3) for c in chosen)
