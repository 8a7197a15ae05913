"""Studio scenes for Principia ``drop``, ``pendulum``, ``spring`` and ``projectile``, simulated by MuJoCo.

Every scene is laid out in the vertical plane ``y = 0`` (world metres, ``z`` up) and filmed by a
camera with zero pitch and yaw, so that plane is parallel to the image plane and image lengths in
it are proportional to world lengths (the tasks compare pixel ratios). Variants by ``index``:
``plain`` (640×360), ``arm`` (drop only: each ball held by a hand that withdraws at release),
``hd`` (1920×1080, objects small), ``portrait`` (360×640). Appearance (backdrop, floor, light,
colours, distractors, noise) and geometry are drawn from ``seed``.

Law-correct clips: MuJoCo integrates gravity, contacts (restitution via ``solref``), hinges and
slide-joint springs. Anti-physics twins break the tested law as the task's own render does:

- drop: the higher ball falls with 3 g, and the balls' restitutions differ (0.88 and 0.88 / 2.6);
- pendulum: the longer pendulum swings under 2.6 g and the shorter under g / 2.6;
- spring: the heavy cube's spring is sqrt(2.6)× stiffer, the light one's sqrt(2.6)× softer;
- projectile: launch speeds swapped at the table edge (the ball released lower lands farther).

Image-space ``known`` values (floor row, pivots, launch columns) are projections of the 3-D
geometry; boxes and colours are measured on the rendered first frame (segmentation masks).
"""

from __future__ import annotations

import colorsys
import math

import numpy as np

from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0
ANTI = 2.6
SIZE = {"plain": (640, 360), "arm": (640, 360), "hd": (1920, 1080), "portrait": (360, 640)}
BALL_SOLIMP = "0.99 0.99 0.001"


def _variant(task: str, index: int) -> str:
    names = ("plain", "arm", "hd", "portrait") if task == "drop" else ("plain", "hd", "portrait")
    return names[index % len(names)]


def _rng(task: str, index: int, seed: int) -> np.random.Generator:
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, index, sum(map(ord, task)), 0x5CE7E])


def _colors(rng: np.random.Generator, k: int) -> list[tuple[float, float, float]]:
    """``k`` saturated colours (0-255) with hues at least 60 degrees apart."""
    h0 = rng.uniform(0, 1)
    hues = [(h0 + i / k + rng.uniform(-0.05, 0.05)) % 1 for i in range(k)]
    return [tuple(255 * c for c in colorsys.hsv_to_rgb(h, rng.uniform(0.65, 0.9), rng.uniform(0.7, 0.95)))
            for h in hues]


def _stage(task: str, index: int, seed: int, rng, x_lo: float, x_hi: float, z_lo: float, z_hi: float,
           pitch: float = 0.0, shift_x: bool = True) -> tuple[E.Stage, str]:
    """Stage with a camera framing the box ``[x_lo, x_hi] × [z_lo, z_hi]`` of the plane ``y = 0``, looking down
    by ``pitch`` degrees (0: the plane is parallel to the image and image lengths in it are proportional);
    ``shift_x=False`` keeps the box centred horizontally (mirror-symmetric perspective)."""
    variant = _variant(task, index)
    w, h = SIZE[variant]
    st = E.Stage(int(rng.integers(2**31)), w, h)
    margin = rng.uniform(2.2, 3.0) if variant == "hd" else rng.uniform(1.12, 1.3)
    half_v = max((z_hi - z_lo) / 2, (x_hi - x_lo) / 2 * h / w) * margin
    # spring: a long lens, so the cubes' top/bottom and side faces (seen ∝ side × offset / distance) stay
    # within a fraction of a pixel and the boxes keep the size ratio
    fovy = float(rng.uniform(12, 18) if task == "spring" else rng.uniform(30, 48))
    dist = half_v / math.tan(math.radians(fovy) / 2)
    slack_z = half_v - (z_hi - z_lo) / 2
    slack_x = half_v * w / h - (x_hi - x_lo) / 2
    cx = (x_lo + x_hi) / 2 + (rng.uniform(-0.6, 0.6) * slack_x if shift_x else 0.0)
    cz = (z_lo + z_hi) / 2 + rng.uniform(-0.6, 0.6) * slack_z
    if variant == "hd":
        st.look.subframes = 2  # a 1080p render costs ~9x a 640x360 one
    p = math.radians(pitch)
    st.camera((cx, -dist * math.cos(p), cz + dist * math.sin(p)), (cx, 0.0, cz), fovy)
    st.floor()
    st.backdrop(float(rng.uniform(0.5, 2.5)))
    return st, variant


def _distractors(st: E.Stage, rng, near, r: float, xs: list[float]) -> None:
    """Static balls of a colour close to ``near`` resting on the floor, set back from the action plane."""
    for x in xs:
        st.distractor(E.sphere(r), (x, float(rng.uniform(0.25, 0.45)), r), near)


def _finish(task: str, index: int, seed: int, world: E.World, sims: dict, shapes: dict, prompt: str,
            duration: float, known: dict, assumptions: list[str], criteria: list[str], quantities: dict,
            object_known: dict | None = None) -> StyledCase:
    """Render the first frame, measure boxes and colours, assemble the StyledCase."""
    rec0 = sims["true"]()
    gen = world.render(rec0)
    first = next(gen)
    gen.close()
    masks = world.masks(rec0)
    objects = [world.object_spec(oid, shape, first, masks, **(object_known or {}).get(oid, {}))
               for oid, shape in shapes.items()]
    case = E.studio_case("principia", task, index, seed, prompt=prompt, duration=duration, fps=FPS,
                         width=world.width, height=world.height, objects=objects, known=known,
                         assumptions=assumptions, criteria=criteria, variant=f"studio-{_variant(task, index)}",
                         quantities=quantities)

    def render(law: str = "true"):
        if law not in sims:
            raise ValueError(f"law must be one of {sorted(sims)}")
        return world.render(sims[law]())

    return StyledCase(case, first, render)


def _px(v) -> list[float]:
    return [round(float(c), 2) for c in v]


# ----------------------------------------------------------------------------- drop


@scene("principia", "drop")
def drop(index: int, seed: int) -> StyledCase:
    """Two identical balls dropped together from different heights onto a floor."""
    rng = _rng("drop", index, seed)
    r = float(rng.uniform(0.03, 0.06))
    dx = float(rng.uniform(0.25, 0.45))
    h_high = float(rng.uniform(0.9, 1.5))  # lower edge above the floor, m
    ratio = float(rng.uniform(1.5, 3.0))
    high = int(rng.integers(2))
    heights = [h_high / ratio] * 2
    heights[high] = h_high
    e = float(rng.uniform(0.55, 0.8))
    xs = [-dx, dx]
    st, variant = _stage("drop", index, seed, rng, -dx - 0.3, dx + 0.3, 0.0, h_high + 2 * r + 0.1)
    cols = _colors(rng, 2)
    solref = {"true": [E.restitution_solref(e)] * 2,
              "anti": [E.restitution_solref(0.88 / ANTI if i == high else 0.88) for i in range(2)]}
    geoms = []
    for i, oid in enumerate(("ball_1", "ball_2")):
        b = st.body(oid, (xs[i], 0.0, heights[i] + r), "free")
        b.geom(E.sphere(r), cols[i], obj=oid, specular=0.6, priority=1, solimp=BALL_SOLIMP,
               solref=solref["true"][i], density=300)
        geoms.append(f"{oid}_g0")
        if variant == "arm":
            out = np.array([-1.0 if i == 0 else 1.0, 0.0, 0.0])
            hand = np.array([xs[i], 0.0, heights[i] + r]) + out * (r + 0.9 * 0.035)
            st.arm(f"arm_{i + 1}", hand, away=out * 1.0 + np.array([0, -0.15, 0.6]), reach=out + [0, 0, 0.35])
    _distractors(st, rng, cols[int(rng.integers(2))], r, [float(rng.choice([-1, 1])) * (dx + rng.uniform(0.2, 0.3))])
    world = st.build()
    gids = [world.id("geom", g) for g in geoms]

    def sim(law: str):
        def run():
            for gid, s in zip(gids, solref[law]):
                world.model.geom_solref[gid] = [float(v) for v in s.split()]
            hook = E.gravity_scale(world, {("ball_1", "ball_2")[high]: 3.0}) if law == "anti" else None
            return world.simulate(duration, FPS, hook=hook)
        return run

    duration = 2.5
    ground = [world.project((x, 0.0, 0.0)) for x in xs]
    ground_y = round(float(np.mean([g[1] for g in ground])), 2)
    h_px = [heights[i] * world.px_per_m((xs[i], 0, 0)) for i in range(2)]
    t_fall = [math.sqrt(2 * h / E.G) for h in heights]
    names = ["ball_1", "ball_2"]
    prompt = ("A fixed camera films two balls of the same size and material in front of a wall. "
              + ("Two hands hold them up, one higher than the other; the hands let go at the same instant and "
                 "pull away. " if variant == "arm" else "They are held still in the air, one higher than the other, "
                 "and let go at the same instant. ")
              + "Both fall straight down onto the hard floor and bounce several times, each bounce lower.")
    known = {"ground_y": ground_y, "g": E.G, "restitution": round(e, 4),
             "drop_height_px": [round(h, 2) for h in h_px], "drop_height_m": [round(h, 4) for h in heights],
             "radius_m": round(r, 4)}
    return _finish("drop", index, seed, world, {"true": sim("true"), "anti": sim("anti")},
                   dict.fromkeys(names, "sphere"), prompt, duration, known,
                   ["same ball material", "released together from rest", "no air resistance"],
                   ["restitution", "gravity"],
                   {"restitution_F1": e, "restitution_F2": e, "gravity_F1": h_px[0] / h_px[1],
                    "gravity_F2": (t_fall[0] / t_fall[1]) ** 2},
                   {o: {"height": heights[i]} for i, o in enumerate(names)})


# ----------------------------------------------------------------------------- pendulum


@scene("principia", "pendulum")
def pendulum(index: int, seed: int) -> StyledCase:
    """Two pendulums of different length on one bar, released together at the same angle."""
    rng = _rng("pendulum", index, seed)
    r = float(rng.uniform(0.025, 0.045))
    long_l = float(rng.uniform(0.6, 1.0))
    ratio = float(rng.uniform(1.5, 3.5))
    longer = int(rng.integers(2))
    lengths = [long_l / ratio] * 2
    lengths[longer] = long_l
    theta = math.radians(float(rng.uniform(12, 20))) * (1 if rng.integers(2) else -1)
    gap = float(rng.uniform(0.25, 0.4))
    bar_z = long_l + r + float(rng.uniform(0.15, 0.5))
    xs = [-gap, gap]
    swing = long_l * math.sin(abs(theta)) + r
    st, _ = _stage("pendulum", index, seed, rng, -gap - swing - 0.1, gap + swing + 0.1,
                   bar_z - long_l - r - 0.08, bar_z + 0.08)
    cols = _colors(rng, 2)
    st.fixed(E.box(gap + 0.25, 0.02, 0.015), (0, 0, bar_z + 0.015), (90, 90, 95), 0.7)  # support bar
    for x in (-gap - 0.22, gap + 0.22):  # posts to the floor
        st.fixed(E.cylinder(0.015, (bar_z + 0.03) / 2), (x, 0, (bar_z + 0.03) / 2), (90, 90, 95), 0.7)
    ids = ("bob_1", "bob_2")
    for i, oid in enumerate(ids):
        b = st.body(oid, (xs[i], 0.0, bar_z), E.Joint("hinge", axis=(0, 1, 0)))
        b.geom(E.capsule(0.0025, (0, 0, 0), (0, 0, -lengths[i] + r)), (235, 235, 225), specular=0.1, mass=1e-4,
               contype=0, conaffinity=0)
        b.geom(E.sphere(r), cols[i], obj=oid, pos=(0, 0, -lengths[i]), specular=0.6, mass=0.2,
               contype=0, conaffinity=0)
    _distractors(st, rng, cols[int(rng.integers(2))], r, [float(rng.choice([-1, 1])) * (gap + swing + 0.2)])
    world = st.build()
    qadr = [world.model.jnt_qposadr[world.model.body_jntadr[world.id("body", o)]] for o in ids]

    def init(d):
        for a in qadr:
            d.qpos[a] = theta

    def sim(law: str):
        def run():
            hook = None
            if law == "anti":
                hook = E.gravity_scale(world, {o: (ANTI if i == longer else 1 / ANTI) for i, o in enumerate(ids)})
            return world.simulate(duration, FPS, hook=hook, init=init)
        return run

    duration = 3.0
    anchors = {o: _px(world.project((xs[i], 0.0, bar_z))) for i, o in enumerate(ids)}
    side = "right" if theta < 0 else "left"  # hinge about +y: positive angles swing the bob to -x
    prompt = ("A camera that does not move films two pendulums hanging side by side from one horizontal bar: "
              "balls of the same size on thin strings of different length. Both balls are pulled out to the "
              f"{side} by the same small angle and released together from rest; they swing freely in the "
              "plane of the picture.")
    lp = [lengths[i] * world.px_per_m((xs[i], 0, bar_z)) for i in range(2)]
    known = {"anchors": anchors, "g": E.G, "length_m": [round(x, 4) for x in lengths],
             "length_px": [round(x, 2) for x in lp], "release_angle": round(theta, 5)}
    periods = [2 * math.pi * math.sqrt(x / E.G) for x in lengths]
    return _finish("pendulum", index, seed, world, {"true": sim("true"), "anti": sim("anti")},
                   dict.fromkeys(ids, "bob"), prompt, duration, known,
                   ["same release angle", "released together from rest", "no air resistance", "strings stay taut"],
                   ["pendulum"], {"F1": periods[0] / periods[1], "F2": math.sqrt(lp[0] / lp[1])},
                   {o: {"length": lengths[i]} for i, o in enumerate(ids)})


# ----------------------------------------------------------------------------- spring


@scene("principia", "spring")
def spring(index: int, seed: int) -> StyledCase:
    """Two identical springs from one bar carrying cubes of different size, released with the springs relaxed."""
    rng = _rng("spring", index, seed)
    small = float(rng.uniform(0.09, 0.12))  # large in the frame: F2 cubes the boxes' side ratio
    ratio = float(rng.uniform(1.25, 1.45))
    heavy = int(rng.integers(2))
    sides = [small] * 2
    sides[heavy] = small * ratio
    rest = float(rng.uniform(0.1, 0.16))
    x_heavy = float(rng.uniform(0.2, 0.3))  # first lowest point of the heavy cube, m
    zeta = float(rng.uniform(0.02, 0.05))
    density = float(rng.uniform(500, 900))
    masses = [density * s**3 for s in sides]
    factor = 1 + math.exp(-math.pi * zeta / math.sqrt(1 - zeta**2))
    stiff = factor * masses[heavy] * E.G / x_heavy
    gap = float(rng.uniform(0.2, 0.3))
    xs = [-gap, gap]
    bar_z = rest + max(sides) + x_heavy + float(rng.uniform(0.15, 0.35))
    # the camera is centred between the cubes: the side faces it sees scale with each cube, so the
    # box sides keep the cubes' size ratio (the task derives the mass ratio from them, cubed)
    # framed tightly around the cubes (the mass ratio is a cube of the box-side ratio, so a pixel counts)
    edge = gap + 0.6 * max(sides) + 0.03
    st, _ = _stage("spring", index, seed, rng, -edge, edge, bar_z - rest - max(sides) - x_heavy - 0.05,
                   bar_z + 0.06, shift_x=False)
    cols = _colors(rng, 2)
    st.fixed(E.box(gap + 0.18, 0.02, 0.015), (0, 0, bar_z + 0.015), (120, 95, 70), 0.3)
    st.fixed(E.cylinder(0.015, (bar_z + 0.03) / 2), (-gap - 0.15, 0, (bar_z + 0.03) / 2), (120, 95, 70), 0.3)
    ids = ("cube_1", "cube_2")
    tendons = []
    for i, oid in enumerate(ids):
        top = bar_z - rest  # cube's top face with the spring relaxed
        s = sides[i]
        # front faces in the plane y = 0: both cubes at the same depth in the image
        b = st.body(oid, (xs[i], s / 2, top - s / 2), E.Joint("slide", axis=(0, 0, 1), stiffness=stiff,
                                                                damping=2 * zeta * math.sqrt(stiff * masses[i])))
        b.geom(E.box(s / 2, s / 2, s / 2), cols[i], obj=oid, specular=0.25, mass=masses[i], contype=0, conaffinity=0)
        b.site(f"{oid}_hook", (0, 0, s / 2))
        st.static.append(f'<site name="{oid}_bar" pos="{xs[i]:.6g} {s / 2:.6g} {bar_z:.6g}" size="0.002"/>')
        tendons.append(f'<spatial name="{oid}_spring" width="0.006" rgba="0.75 0.75 0.78 1">'
                       f'<site site="{oid}_bar"/><site site="{oid}_hook"/></spatial>')
    st.extra.append("<tendon>" + "".join(tendons) + "</tendon>")
    _distractors(st, rng, cols[int(rng.integers(2))], 0.04, [float(rng.choice([-1, 1])) * (gap + 0.35)])
    world = st.build()
    jids = [world.model.body_jntadr[world.id("body", o)] for o in ids]
    scale = [math.sqrt(ANTI) if i == heavy else 1 / math.sqrt(ANTI) for i in range(2)]

    def sim(law: str):
        def run():
            for i, j in enumerate(jids):
                k = stiff * (scale[i] if law == "anti" else 1.0)
                world.model.jnt_stiffness[j] = k
                world.model.dof_damping[world.model.jnt_dofadr[j]] = 2 * zeta * math.sqrt(k * masses[i])
            return world.simulate(duration, FPS)
        return run

    duration = 3.0
    size = ["small", "small"]
    size[heavy] = "large"
    prompt = ("A fixed camera films two identical springs hanging side by side from a wooden bar. A "
              f"{size[0]} cube hangs from the left spring and a {size[1]} cube of the same wood from the right one. "
              "Both are held so the springs are relaxed, then let go together: they drop, stretch the springs "
              "and bob up and down.")
    known = {"g": E.G, "stiffness": round(stiff, 4), "damping_ratio": round(zeta, 5),
             "side_m": [round(s, 4) for s in sides], "mass_kg": [round(m, 5) for m in masses]}
    x_max = [factor * m * E.G / stiff for m in masses]
    return _finish("spring", index, seed, world, {"true": sim("true"), "anti": sim("anti")},
                   dict.fromkeys(ids, "block"), prompt, duration, known,
                   ["identical springs (same stiffness and rest length)", "cubes of the same material",
                    "released together from rest with the springs unstretched"],
                   ["spring"], {"F1": x_max[0] / x_max[1], "F2": masses[0] / masses[1]},
                   {o: {"mass": masses[i]} for i, o in enumerate(ids)})


# ----------------------------------------------------------------------------- projectile


@scene("principia", "projectile")
def projectile(index: int, seed: int) -> StyledCase:
    """Balls roll down back-to-back ramps on a table from different heights and fly off opposite edges."""
    rng = _rng("projectile", index, seed)
    table_z = float(rng.uniform(0.7, 1.0))
    hw = float(rng.uniform(0.45, 0.6))
    theta = math.radians(float(rng.uniform(22, 32)))
    r = float(rng.uniform(0.025, 0.035))
    ratio = float(rng.uniform(1.5, 3.0))
    higher = int(rng.integers(2))
    gap = 0.03
    slope = (hw - gap) / math.cos(theta)  # ramp length along the slope
    high_s = 2.5 * r  # contact point of the higher ball, m down the slope from the top
    drops = [(slope - high_s) / ratio] * 2
    drops[higher] = slope - high_s
    v_max = math.sqrt(2 * E.G * (slope - high_s) * math.sin(theta) / 1.4)
    t_fly = (-v_max * math.sin(theta) + math.sqrt((v_max * math.sin(theta)) ** 2 + 2 * E.G * table_z)) / E.G
    reach = hw + v_max * math.cos(theta) * t_fly + 0.25  # the faster ball lands inside the frame, either law
    top_z = table_z + (hw - gap) * math.tan(theta)
    st, _ = _stage("projectile", index, seed, rng, -reach, reach, 0.0, top_z + 0.1, pitch=float(rng.uniform(6, 16)),
                   shift_x=False)
    cols = _colors(rng, 2)
    wood = tuple(rng.uniform([120, 80, 50], [190, 140, 100]))
    st.fixed(E.box(hw, 0.2, 0.02), (0, 0.12, table_z - 0.02), wood, 0.3)  # table top (front edge y = -0.08)
    st.fixed(E.box(hw - 0.05, 0.16, (table_z - 0.04) / 2), (0, 0.12, (table_z - 0.04) / 2),
             tuple(0.7 * np.asarray(wood)), 0.2)
    ramp_rgb = tuple(rng.uniform([150, 150, 150], [220, 220, 220]))
    ids = ("ball_1", "ball_2")
    starts, launch = [], {}
    for i, sgn in enumerate((-1.0, 1.0)):
        u = np.array([sgn * math.cos(theta), 0.0, -math.sin(theta)])  # down the slope
        n = np.array([sgn * math.sin(theta), 0.0, math.cos(theta)])  # surface normal
        a = np.array([sgn * gap, 0.0, top_z])
        centre = a + u * slope / 2 - n * 0.01
        st.fixed(E.box(slope / 2, 0.07, 0.01), centre, ramp_rgb, 0.3, euler=(0, sgn * math.degrees(theta), 0))
        s0 = slope - drops[i]
        p0 = a + u * s0 + n * r
        starts.append(p0)
        launch[ids[i]] = sgn * hw
        b = st.body(ids[i], tuple(p0), "free")
        b.geom(E.sphere(r), cols[i], obj=ids[i], specular=0.6, density=1000, friction="1.0 0.005 0.0001",
               solimp=BALL_SOLIMP, solref=E.restitution_solref(0.3), priority=1)
    _distractors(st, rng, cols[int(rng.integers(2))], r, [float(rng.uniform(-0.3, 0.3)) * hw])
    world = st.build()
    bids = [world.id("body", o) for o in ids]
    dofs = [world.model.jnt_dofadr[world.model.body_jntadr[b]] for b in bids]
    edge = hw + r * math.sin(theta) + 0.002  # ball centre |x| once it has left its ramp

    def launch_speeds() -> list[float]:
        out = [0.0, 0.0]
        world.simulate(duration, FPS, hook=_edge_hook(edge, dofs, out, None))
        return out

    def sim(law: str):
        def run():
            if law == "true":
                return world.simulate(duration, FPS)
            speeds = launch_speeds()
            return world.simulate(duration, FPS, hook=_edge_hook(edge, dofs, [0.0, 0.0], speeds[::-1]))
        return run

    duration = 2.5
    known = {"ground_y": round(float(world.project((0.0, 0.0, 0.0))[1]), 2),
             "launch_x": {o: round(float(world.project((launch[o], 0.0, table_z))[0]), 2) for o in ids},
             "g": E.G, "table_height_m": round(table_z, 4), "ramp_angle": round(theta, 5)}
    prompt = ("A fixed camera looks at a table from the side. On it two identical ramps stand back to back, one "
              "sloping down to the left edge and one to the right edge. A ball of the same size rests on each ramp, "
              "one higher up than the other. Both are let go together; they roll down, fly off the table edges in "
              "opposite directions and land on the floor.")
    return _finish("projectile", index, seed, world, {"true": sim("true"), "anti": sim("anti")},
                   dict.fromkeys(ids, "sphere"), prompt, duration, known,
                   ["identical ramps with the same angle", "rolling without slipping on the ramps",
                    "no air resistance", "released together from rest"],
                   ["projectile"], {})


def _edge_hook(edge: float, dofs: list[int], seen: list[float], speeds: list[float] | None):
    """Per step: when a ball's centre first passes ``|x| > edge`` (it has left the ramp) record its speed
    in ``seen``; with ``speeds`` given, rescale its velocity and spin to that speed (the anti-physics swap)."""
    done = [False, False]

    def hook(w: E.World, d) -> None:
        for i, a in enumerate(dofs):
            if done[i] or abs(d.qpos[w.model.jnt_qposadr[w.model.dof_jntid[a]]]) <= edge:
                continue
            done[i] = True
            v = d.qvel[a:a + 3]
            speed = float(np.linalg.norm(v))
            seen[i] = speed
            if speeds is not None and speed > 0:
                d.qvel[a:a + 6] *= speeds[i] / speed

    return hook
