"""The built-in PhyGround-style case set: prompts with an explicit expected outcome, each tagged with the
2-4 laws of the taxonomy it exercises (seed 001 §3.2) and a source category.

Drawn cases (a ``scene``) come with a first frame, a law-correct render and an anti-physics twin that starts
from the same frame and breaks the tagged laws, so the built-in models give a judge something to score in
all 13 law columns: solid-body scenes in :mod:`.scenes_solid`, liquids in :mod:`.scenes_fluid`, mirrors and
shadows in :mod:`.scenes_optics`. Text-only cases (no ``scene``) need videos from elsewhere (``folder:DIR``
models); nothing is rendered for them. A published prompt set loads with :mod:`.prompts`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from lawful.case import Case, ObjectSpec
from lawful.suites.phyground.scenes_common import DURATION, FPS, H, W, Drawn
from lawful.suites.phyground.taxonomy import LAW_DOMAIN

MIN_LAWS, MAX_LAWS = 2, 4  # applicable laws per video (seed 001 §3.2)


@dataclass(frozen=True)
class CaseSpec:
    id: str
    prompt: str
    expected_outcome: str
    laws: tuple[str, ...]
    scene: str | None = None  # a key of SCENES, or None for text-only
    source: str = "lawful built-in"  # the prompt's source category
    image: str | None = None  # a first frame on disk (loaded prompt sets); drawn scenes render their own


def _c(id, prompt, outcome, laws, scene=None):
    return CaseSpec(id, prompt, outcome, tuple(laws), scene)


CASES: tuple[CaseSpec, ...] = (
    # --- drawn: solid-body mechanics --------------------------------------------------------------
    _c("pg-ball-drop", "A red rubber ball is released from rest above a hard floor.",
       "The ball falls faster and faster, hits the floor and bounces several times, each bounce lower, "
       "until it rests on the floor.", ("gravity", "collision", "impenetrability"), "ball_drop"),
    _c("pg-ball-off-table", "A red ball rolls along a wooden table towards its edge.",
       "The ball rolls off the edge, curves down in an arc to the floor, bounces a little and keeps "
       "rolling in the same direction.", ("gravity", "inertia"), "ball_off_table"),
    _c("pg-head-on", "A blue ball rolls towards an identical orange ball resting on the floor.",
       "The blue ball hits the orange one and stops; the orange ball rolls away at about the blue ball's "
       "former speed.", ("momentum", "collision"), "head_on"),
    _c("pg-ball-wall", "A red ball rolls quickly across the floor towards a solid wooden wall.",
       "The ball hits the wall, bounces back and rolls away from it more slowly; it never enters the "
       "wall.", ("collision", "impenetrability", "inertia"), "ball_wall"),
    _c("pg-ramp-roll", "A green ball is released at the top of a wooden ramp.",
       "The ball rolls down the ramp, speeding up, and carries on across the floor at a steady speed "
       "after the ramp ends.", ("gravity", "inertia"), "ramp_roll"),
    _c("pg-drop-on-block", "A blue ball is dropped from above onto a wooden block standing on the floor.",
       "The ball falls, lands on top of the block, bounces a few times on it and comes to rest on the "
       "block.", ("gravity", "impenetrability", "collision"), "drop_on_block"),
    _c("pg-heavy-light", "A heavy steel ball rolls into a small plastic ball a quarter of its mass.",
       "After the knock the small ball shoots off much faster than the steel ball came in, and the steel "
       "ball keeps rolling forward, slower.", ("momentum", "collision"), "heavy_light"),
    _c("pg-clay-rubber", "A rubber ball and a ball of soft clay are dropped side by side onto a hard floor.",
       "Both fall together, speeding up; the rubber ball bounces back up again and again, while the clay "
       "flattens into a pancake where it lands and stays.", ("material", "gravity"), "clay_rubber"),
    _c("pg-glass-pane", "A small pane of glass slips and falls flat onto a stone floor.",
       "The pane hits the floor and breaks into several sharp pieces that skid apart and stop; nothing "
       "bounces back up.", ("material", "collision"), "glass_pane"),
    # --- drawn: fluids ----------------------------------------------------------------------------
    _c("pg-pour-water", "Water starts pouring from a jug into a clear glass with a little water in it.",
       "A curved stream, thinning as it falls, lands inside the glass; the level rises steadily and no "
       "water gets through the glass.", ("flow_dynamics", "continuity", "boundary_interaction"), "pour_glass"),
    _c("pg-stone-in-glass", "A stone block on a string is lowered into a glass of water and let go.",
       "The water level climbs as more of the stone goes under; once let go the stone sinks to the "
       "bottom and stays there.", ("displacement", "buoyancy"), "lower_block"),
    _c("pg-wood-and-steel", "A wooden block and a steel ball are dropped together into a tank of water.",
       "Both speed up as they fall and splash in; the steel ball sinks to the bottom while the block bobs "
       "and floats with part of it above water, and the water level rises.",
       ("buoyancy", "displacement", "gravity"), "float_sink"),
    _c("pg-tank-jet", "Water spurts sideways from a small hole near the bottom of a tall water tank.",
       "As the tank drains the level drops, more slowly as it goes, and the jet falls closer and closer to "
       "the tank.", ("flow_dynamics", "continuity"), "tank_jet"),
    _c("pg-tap-block", "A tap is opened above a wooden block standing on the floor.",
       "The stream lands on top of the block, spreads over it, runs down both sides and forms puddles on "
       "the floor that keep growing.", ("boundary_interaction", "continuity"), "stream_block"),
    # --- drawn: optics ----------------------------------------------------------------------------
    _c("pg-mirror-roll", "A red ball rolls across the floor towards a tall mirror standing upright.",
       "The ball rolls on steadily, slowing only a little; its image in the mirror comes towards it from "
       "behind the glass, always as far behind the mirror as the ball is in front.",
       ("reflection", "inertia"), "mirror_roll"),
    _c("pg-mirror-drop", "A blue rubber ball is dropped above a mirror lying flat on the floor.",
       "The ball speeds up as it falls while its mirror image rises to meet it; they touch at the glass, "
       "the ball bounces and the image follows every bounce upside down.",
       ("reflection", "gravity", "collision"), "mirror_drop"),
    _c("pg-lamp-ball", "A lamp on a stand at the left is switched on while a red ball rolls to the right across "
       "the floor.",
       "The ball rolls on steadily; its shadow lies on the floor on the side away from the lamp, starts "
       "where the ball touches the floor and travels with it.", ("shadow", "inertia"), "lamp_roll"),
    _c("pg-lamp-drop", "A blue ball is dropped just as a lamp standing on the right is switched on.",
       "The ball falls faster and faster and bounces; its shadow on the floor lies on the side away from "
       "the lamp and slides in to meet the ball as it lands.", ("shadow", "gravity"), "lamp_drop"),
    # --- text-only: solid bodies that break or deform ------------------------------------------------
    _c("pg-vase-falls", "A glass vase is knocked off a table and falls onto a tiled floor.",
       "The vase falls, speeding up, and shatters into sharp pieces that scatter across the tiles.",
       ("gravity", "material", "collision")),
    _c("pg-tomato-drop", "A ripe tomato is dropped onto a concrete floor.",
       "The tomato falls and splits open on impact, flattening and spilling juice; it does not bounce "
       "like a ball.", ("gravity", "material")),
    _c("pg-bowling", "A bowling ball rolls down a lane into ten standing pins.",
       "The ball knocks the front pins, which fly back and sideways into the others; the ball keeps "
       "moving forward, slowed only a little.", ("momentum", "collision", "inertia")),
    _c("pg-tablecloth", "A tablecloth is yanked quickly off a table set with plates and glasses.",
       "The cloth slides out from under the dishes, which stay almost where they were.",
       ("inertia", "impenetrability")),
    # --- text-only: fluids ------------------------------------------------------------------------
    _c("pg-duck-release", "A rubber duck is pushed under the water in a bathtub and let go.",
       "The duck shoots back up to the surface, bobs a few times and floats, sending ripples across "
       "the water.", ("buoyancy", "flow_dynamics")),
    _c("pg-honey", "Honey is poured slowly from a spoon onto a stack of pancakes.",
       "A thick, unbroken ribbon of honey falls, piles up and spreads slowly over the pancakes and "
       "down their sides.", ("flow_dynamics", "continuity", "boundary_interaction")),
    _c("pg-tap-plate", "A kitchen tap is turned on above a plate lying in a sink.",
       "The water stream hits the plate, splashes and spreads across it, runs off its edge and drains "
       "away.", ("boundary_interaction", "flow_dynamics", "continuity")),
    _c("pg-ice-in-juice", "Ice cubes are dropped into a full glass of orange juice.",
       "The juice splashes and some spills over the rim; the ice floats near the surface.",
       ("displacement", "buoyancy", "boundary_interaction")),
    _c("pg-pool-ball", "A beach ball is thrown into a calm swimming pool.",
       "The ball lands with a splash, floats high on the surface and ripples spread out in rings.",
       ("buoyancy", "flow_dynamics", "gravity")),
    _c("pg-sponge", "A dry sponge is pressed into a shallow tray of water and lifted out.",
       "The sponge soaks up water, the level in the tray drops, and water drips from the sponge when it "
       "is lifted.", ("continuity", "boundary_interaction", "material")),
    # --- text-only: optics ------------------------------------------------------------------------
    _c("pg-flashlight-mug", "In a dark room a flashlight is moved slowly in a circle above a coffee mug "
       "standing on a polished mirror tile.",
       "The mug's shadow swings around it, always pointing away from the flashlight, and the mug and the "
       "moving light appear upside down in the tile beneath them.", ("shadow", "reflection")),
    _c("pg-pond-reflection", "A red ball is dropped into a still pond that mirrors the trees around it.",
       "The reflection of the falling ball meets the ball at the surface; the splash breaks the "
       "reflection into ripples that spread and settle.", ("reflection", "gravity", "flow_dynamics")),
    _c("pg-candle-mirror", "A lit candle is carried slowly towards a mirror on a dim shelf.",
       "The candle's reflection grows and approaches from behind the glass as the candle nears the "
       "mirror, and the shadows on the shelf swing away from the flame.", ("reflection", "shadow")),
)


def check_spec(spec: CaseSpec) -> None:
    """Raise ValueError unless every tag is a law of the taxonomy and there are 2-4 of them, without repeats."""
    unknown = [k for k in spec.laws if k not in LAW_DOMAIN]
    if unknown:
        raise ValueError(f"case {spec.id}: unknown law(s) {', '.join(unknown)}")
    if len(set(spec.laws)) != len(spec.laws) or not MIN_LAWS <= len(spec.laws) <= MAX_LAWS:
        raise ValueError(f"case {spec.id}: needs {MIN_LAWS}-{MAX_LAWS} distinct laws, has {list(spec.laws)}")


for _c_ in CASES:  # the set's own sanity: 2-4 distinct laws per case, ids unique
    check_spec(_c_)
assert len({c.id for c in CASES}) == len(CASES)


# ------------------------------------------------------------------------------------ drawing
def _scenes() -> dict[str, Drawn]:
    from lawful.suites.phyground import scenes_fluid, scenes_optics, scenes_solid

    return {**scenes_solid.SCENES, **scenes_fluid.SCENES, **scenes_optics.SCENES}


SCENES: dict[str, Drawn] = _scenes()
for _c in CASES:
    assert _c.scene is None or _c.scene in SCENES, _c.id


def render_scene(case: Case, law: str = "true") -> Iterator[np.ndarray]:
    """Frames ``[H, W, 3]`` of a drawn case: the law-correct clip or its anti-physics twin."""
    from lawful.world.draw import Scene

    name = case.known.get("scene")
    if name not in SCENES:
        raise NotImplementedError(f"case {case.id} is text-only: lawful cannot render it; bring videos")
    drawn = SCENES[name]
    scene = Scene(case.width, case.height)
    drawn.setup(scene)
    for i in range(case.n_frames):
        yield drawn.frame(scene, i * case.duration / case.n_frames, law)


def _objects(items) -> list[ObjectSpec]:
    from lawful.world.shapes import Block, Sphere

    out = []
    for it in items:
        shape = "sphere" if isinstance(it, Sphere) else "block" if isinstance(it, Block) else "other"
        name = {"sphere": "ball", "block": "block"}.get(shape, "object")
        out.append(ObjectSpec(id=f"{name}_{len(out) + 1}", shape=shape, color=tuple(it.color), box=it.bbox()))
    return out


def spec_known(spec: CaseSpec) -> dict:
    """The ``known`` block every PhyGround case carries: expected outcome, laws, their domains (and source)."""
    known = {"expected_outcome": spec.expected_outcome, "laws": list(spec.laws),
             "domains": sorted({LAW_DOMAIN[k] for k in spec.laws})}
    if spec.source:
        known["source"] = spec.source
    return known


def build_case(spec: CaseSpec) -> tuple[Case, np.ndarray | None]:
    """The :class:`Case` of a spec and its first frame: rendered for a drawn scene, read from ``spec.image`` for a
    loaded prompt (the case takes the image's size), None for text-only prompts."""
    known = spec_known(spec)
    objects, frame, (w, h) = [], None, (W, H)
    if spec.scene:
        known["scene"] = spec.scene
        objects = _objects(SCENES[spec.scene].items(0.0, "true"))
    elif spec.image:  # a loaded prompt's own first frame
        from PIL import Image

        with Image.open(spec.image) as im:
            frame = np.asarray(im.convert("RGB"))
        h, w = frame.shape[:2]
    prompt = f"{spec.prompt} {spec.expected_outcome}".strip()
    case = Case(id=spec.id, suite="phyground", task="scene", prompt=prompt, width=w, height=h, fps=FPS,
                duration=DURATION, objects=objects, known=known, criteria=list(spec.laws))
    if spec.scene:
        frame = next(render_scene(case, "true"))
    return case, frame
