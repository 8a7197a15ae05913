"""The built-in PhyGround-style case set: prompts with an explicit expected outcome, each tagged
with the 2-4 laws of the taxonomy it exercises.

Scenes the world renderer can draw (balls, blocks, ramps, floors) come with a first frame and a
law-correct render plus an anti-physics twin that breaks the tagged laws, so the built-in models
have something to show a judge. Liquid and optics scenes are text-only (no first frame): bring
videos for them (``folder:DIR`` models) — nothing is rendered or scored for them otherwise.

Units: scenes are 640 x 360 px side views, 24 fps, 3 s; physics at 150 px per metre, g = 9.81 m/s².
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from lawful.case import Case, ObjectSpec
from lawful.suites.phyground.taxonomy import LAW_DOMAIN

W, H, FPS, DURATION = 640, 360, 24.0, 3.0
PX_PER_M, G = 150.0, 9.81
GROUND = 310.0
RED, BLUE, ORANGE, GREEN = (214, 40, 40), (40, 90, 220), (240, 140, 20), (40, 170, 70)


@dataclass(frozen=True)
class CaseSpec:
    id: str
    prompt: str
    expected_outcome: str
    laws: tuple[str, ...]
    scene: str | None = None  # a key of SCENES, or None for text-only


CASES: tuple[CaseSpec, ...] = (
    # --- drawn: solid-body mechanics --------------------------------------------------------------
    CaseSpec("pg-ball-drop", "A red rubber ball is released from rest above a hard floor.",
             "The ball falls faster and faster, hits the floor and bounces several times, each bounce lower, "
             "until it rests on the floor.", ("gravity", "collision", "impenetrability"), "ball_drop"),
    CaseSpec("pg-ball-off-table", "A red ball rolls along a wooden table towards its edge.",
             "The ball rolls off the edge, curves down in an arc to the floor, bounces a little and keeps "
             "rolling in the same direction.", ("gravity", "inertia"), "ball_off_table"),
    CaseSpec("pg-head-on", "A blue ball rolls towards an identical orange ball resting on the floor.",
             "The blue ball hits the orange one and stops; the orange ball rolls away at about the blue ball's "
             "former speed.", ("momentum", "collision"), "head_on"),
    CaseSpec("pg-ball-wall", "A red ball rolls quickly across the floor towards a solid wooden wall.",
             "The ball hits the wall, bounces back and rolls away from it more slowly; it never enters the "
             "wall.", ("collision", "impenetrability", "inertia"), "ball_wall"),
    CaseSpec("pg-ramp-roll", "A green ball is released at the top of a wooden ramp.",
             "The ball rolls down the ramp, speeding up, and carries on across the floor at a steady speed "
             "after the ramp ends.", ("gravity", "inertia"), "ramp_roll"),
    CaseSpec("pg-drop-on-block", "A blue ball is dropped from above onto a wooden block standing on the floor.",
             "The ball falls, lands on top of the block, bounces a few times on it and comes to rest on the "
             "block.", ("gravity", "impenetrability", "collision"), "drop_on_block"),
    # --- text-only: solid bodies that break or deform ------------------------------------------------
    CaseSpec("pg-vase-falls", "A glass vase is knocked off a table and falls onto a tiled floor.",
             "The vase falls, speeding up, and shatters into sharp pieces that scatter across the tiles.",
             ("gravity", "material", "collision")),
    CaseSpec("pg-tomato-drop", "A ripe tomato is dropped onto a concrete floor.",
             "The tomato falls and splits open on impact, flattening and spilling juice; it does not bounce "
             "like a ball.", ("gravity", "material")),
    CaseSpec("pg-bowling", "A bowling ball rolls down a lane into ten standing pins.",
             "The ball knocks the front pins, which fly back and sideways into the others; the ball keeps "
             "moving forward, slowed only a little.", ("momentum", "collision", "inertia")),
    CaseSpec("pg-tablecloth", "A tablecloth is yanked quickly off a table set with plates and glasses.",
             "The cloth slides out from under the dishes, which stay almost where they were.",
             ("inertia", "impenetrability")),
    # --- text-only: fluids ------------------------------------------------------------------------
    CaseSpec("pg-pour-water", "Water is poured from a clear pitcher into an empty drinking glass.",
             "A steady stream falls into the glass; the glass fills as the pitcher empties, and the water "
             "settles level.", ("flow_dynamics", "continuity", "boundary_interaction")),
    CaseSpec("pg-stone-in-glass", "A stone is lowered into a half-full glass of water.",
             "The stone sinks to the bottom and the water level in the glass rises.",
             ("displacement", "buoyancy", "boundary_interaction")),
    CaseSpec("pg-wood-and-bolt", "A wooden block and a steel bolt are dropped together into a bucket of water.",
             "Both splash in; the bolt sinks to the bottom while the block bobs up and floats, partly "
             "submerged.", ("buoyancy", "gravity", "displacement")),
    CaseSpec("pg-duck-release", "A rubber duck is pushed under the water in a bathtub and let go.",
             "The duck shoots back up to the surface, bobs a few times and floats, sending ripples across "
             "the water.", ("buoyancy", "flow_dynamics")),
    CaseSpec("pg-honey", "Honey is poured slowly from a spoon onto a stack of pancakes.",
             "A thick, unbroken ribbon of honey falls, piles up and spreads slowly over the pancakes and "
             "down their sides.", ("flow_dynamics", "continuity", "boundary_interaction")),
    CaseSpec("pg-tap-plate", "A kitchen tap is turned on above a plate lying in a sink.",
             "The water stream hits the plate, splashes and spreads across it, runs off its edge and drains "
             "away.", ("boundary_interaction", "flow_dynamics", "continuity")),
    CaseSpec("pg-ice-in-juice", "Ice cubes are dropped into a full glass of orange juice.",
             "The juice splashes and some spills over the rim; the ice floats near the surface.",
             ("displacement", "buoyancy", "boundary_interaction")),
    CaseSpec("pg-pool-ball", "A beach ball is thrown into a calm swimming pool.",
             "The ball lands with a splash, floats high on the surface and ripples spread out in rings.",
             ("buoyancy", "flow_dynamics", "gravity")),
    CaseSpec("pg-sponge", "A dry sponge is pressed into a shallow tray of water and lifted out.",
             "The sponge soaks up water, the level in the tray drops, and water drips from the sponge when it "
             "is lifted.", ("continuity", "boundary_interaction", "material")),
    # --- text-only: optics ------------------------------------------------------------------------
    CaseSpec("pg-mirror-car", "A toy car rolls across a table in front of a large wall mirror.",
             "The car's reflection moves across the mirror in step with the car, mirror-reversed, and the "
             "car keeps rolling until friction slows it.", ("reflection", "inertia")),
    CaseSpec("pg-lamp-ball", "A desk lamp on the left lights a table while a ball rolls from left to right.",
             "The ball's shadow falls to its right, stays attached where the ball touches the table and "
             "moves along with it.", ("shadow", "inertia")),
    CaseSpec("pg-flashlight-mug", "In a dark room a flashlight is moved slowly in a circle above a coffee mug.",
             "The mug's shadow swings around it, always pointing away from the flashlight and changing "
             "length as the light moves.", ("shadow",)),
    CaseSpec("pg-pond-reflection", "A red ball is dropped into a still pond that mirrors the trees around it.",
             "The reflection of the falling ball meets the ball at the surface; the splash breaks the "
             "reflection into ripples that spread and settle.", ("reflection", "gravity", "flow_dynamics")),
    CaseSpec("pg-candle-mirror", "A lit candle is carried slowly towards a mirror on a dim shelf.",
             "The candle's reflection grows and approaches from behind the glass as the candle nears the "
             "mirror, and the shadows on the shelf swing away from the flame.", ("reflection", "shadow")),
)

for _c in CASES:  # the set's own sanity: every tag is a law, 1-4 per case, ids are unique
    assert all(k in LAW_DOMAIN for k in _c.laws) and 1 <= len(_c.laws) <= 4, _c.id
assert len({c.id for c in CASES}) == len(CASES)


# ------------------------------------------------------------------------------------ drawing
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
    return [("sphere", x, y, r, RED)]


def _scene_ball_off_table(t: float, law: str):
    r, top, edge, x0 = 18.0, 190.0, 300.0, 90.0
    vx = 1.6  # m/s
    x = x0 + _px(vx * t)
    t_edge = (edge - x0) / _px(vx)
    if t <= t_edge:
        return [("sphere", x, top - r, r, RED)]
    s = t - t_edge
    if law == "true":
        drop = (GROUND - r) - (top - r)
        fall_t = np.sqrt(2 * (drop / PX_PER_M) / G)
        if s < fall_t:
            y = (top - r) + _px(0.5 * G * s * s)
        else:  # a low bounce after landing, then rolling on
            v_up, u = 0.35 * G * fall_t, s - fall_t  # leaves the floor at e = 0.35 of the impact speed
            y = (GROUND - r) - max(0.0, float(_px(v_up * u - 0.5 * G * u * u)))
        return [("sphere", x, y, r, RED)]
    hover = 0.45  # cartoon physics: keeps going level in mid-air, then drops straight down slowly
    if s < hover:
        return [("sphere", x, top - r, r, RED)]
    xs = edge + _px(vx * hover)
    y = min(GROUND - r, (top - r) + _px(1.2 * (s - hover)))
    return [("sphere", xs, y, r, RED)]


def _scene_head_on(t: float, law: str):
    r, xa0, xb0, v = 24.0, 90.0, 330.0, 1.2
    y = GROUND - r
    t_hit = (xb0 - 2 * r - xa0) / _px(v)
    if t < t_hit or law == "anti":  # anti: A passes straight through B, which never moves
        return [("sphere", xb0, y, r, ORANGE), ("sphere", xa0 + _px(v * t), y, r, BLUE)]
    xa = xb0 - 2 * r
    return [("sphere", xb0 + _px(v * (t - t_hit)), y, r, ORANGE), ("sphere", xa, y, r, BLUE)]


WALL = (470.0, 150.0, 510.0, GROUND)


def _scene_ball_wall(t: float, law: str):
    r, x0, v, e = 20.0, 80.0, 2.4, 0.6
    y = GROUND - r
    t_hit = (WALL[0] - r - x0) / _px(v)
    if t < t_hit or law == "anti":  # anti: rolls on through the wall
        return [("sphere", x0 + _px(v * t), y, r, RED)]
    return [("sphere", WALL[0] - r - _px(e * v * (t - t_hit)), y, r, RED)]


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
            return [("sphere", x0 + ux * s + nx * r + 10, y0 + uy * s + ny * r, r, GREEN)]
        v_end = a * t_end * ux  # horizontal part carries on
        xe = x0 + ux * s_end + nx * r + 10
        return [("sphere", xe + v_end * (t - t_end), GROUND - r, r, GREEN)]
    v = s_end / 1.2  # anti: slides at constant speed and stops dead at the bottom
    s = min(s_end, v * t)
    return [("sphere", x0 + ux * s + nx * r + 10, y0 + uy * s + ny * r, r, GREEN)]


BLOCK = (260.0, 220.0, 380.0, GROUND)


def _scene_drop_on_block(t: float, law: str):
    r, x, y0 = 20.0, 320.0, 40.0
    if law == "true":
        rest = BLOCK[1] - r
        y = rest - _bounce_y((rest - y0) / PX_PER_M, 0.55, t)
    else:  # falls through the block to the floor
        rest = GROUND - r
        y = rest - _bounce_y((rest - y0) / PX_PER_M, 0.55, t)
    return [("sphere", x, y, r, BLUE)]


def _setup_plain(scene):
    scene.ground(GROUND)


SCENES: dict[str, tuple[Callable, Callable]] = {
    "ball_drop": (_setup_plain, _scene_ball_drop),
    "ball_off_table": (lambda s: (s.ground(GROUND), s.platform(0, 190, 300, GROUND)), _scene_ball_off_table),
    "head_on": (_setup_plain, _scene_head_on),
    "ball_wall": (lambda s: (s.ground(GROUND), s.platform(*WALL)), _scene_ball_wall),
    "ramp_roll": (lambda s: (s.ground(GROUND), s.ramp(list(RAMP))), _scene_ramp_roll),
    "drop_on_block": (lambda s: (s.ground(GROUND), s.platform(*BLOCK)), _scene_drop_on_block),
}


def _items(spec_items):
    from lawful.world.draw import Sphere

    return [Sphere(x, y, r, c) for _, x, y, r, c in spec_items]


def render_scene(case: Case, law: str = "true") -> Iterator[np.ndarray]:
    """Frames ``[H, W, 3]`` of a drawn case: the law-correct clip or its anti-physics twin."""
    from lawful.world.draw import Scene

    name = case.known.get("scene")
    if name not in SCENES:
        raise NotImplementedError(f"case {case.id} is text-only: lawful cannot render it; bring videos")
    setup, motion = SCENES[name]
    scene = Scene(case.width, case.height)
    setup(scene)
    for i in range(case.n_frames):
        yield scene.frame(_items(motion(i * case.duration / case.n_frames, law)))


def build_case(spec: CaseSpec) -> tuple[Case, np.ndarray | None]:
    """The :class:`Case` of a spec and its first frame (None for text-only cases)."""
    known = {"expected_outcome": spec.expected_outcome, "laws": list(spec.laws),
             "domains": sorted({LAW_DOMAIN[k] for k in spec.laws})}
    objects = []
    if spec.scene:
        known["scene"] = spec.scene
        for j, (_, x, y, r, c) in enumerate(SCENES[spec.scene][1](0.0, "true")):
            objects.append(ObjectSpec(id=f"ball_{j + 1}", shape="sphere", color=c, box=(x - r, y - r, x + r, y + r)))
    case = Case(id=spec.id, suite="phyground", task="scene",
                prompt=f"{spec.prompt} {spec.expected_outcome}", width=W, height=H, fps=FPS, duration=DURATION,
                objects=objects, known=known, criteria=list(spec.laws))
    frame = next(render_scene(case, "true")) if spec.scene else None
    return case, frame
