"""Studio scenes of Principia friction, inertia and momentum (Table 2): objects sliding and rolling down ramps.

MuJoCo integrates every motion (RK4, 1 ms); nothing is scripted in the law-correct clips:

- ``friction``: two wooden blocks of one material, one 1.3–1.5× the side of the other, slide down two
  faces of equal angle and friction, either the two faces of a tent ramp (sliding outwards) or two
  separate ramps facing each other (a valley: sliding inwards). Same start distance from the
  finish strip painted near each foot; ``a = g (sin θ - μ cos θ)`` does not depend on mass, so
  MuJoCo's arrival times agree. Twin (as the task's own): the heavy block feels gravity × 2.6 and
  the light one × 1/2.6 (an applied vertical force), which scales each block's acceleration.
- ``inertia``: a solid cylinder and a thick-walled tube (explicit inertia ``I = k m R²``, equal mass
  and outer radius) roll without slipping down the same two geometries. Twin: the tube's gravity
  × 2.6, the solid's × 1/2.6.
- ``momentum_height`` / ``momentum_mass``: each ball rolls down its own wedge ramp standing on the
  floor, back to back, rolls across a short stretch of floor and knocks a wooden block outwards
  (restitution set by the ball–block contact's ``solref``), which slides to a stop by floor friction.
  Height: two ramps of different heights (ratio 1.6–2.5) and the same angle, identical blocks.
  Mass: identical ramps, blocks of one wood with sides 1.3–1.45× apart. Twin (as the task's own):
  each block's floor friction is rescaled from the law clip's simulated slides so that the two
  slides swap.

Contacts are explicit ``<pair>`` elements: each object touches only its own face (an exact, infinite
collision plane hidden in geom group 3, under a visible prism mesh) and the floor, so faces and objects
never interact across sides. Image-space ``known`` values are projections of the 3-D geometry:
``finish_y`` is the lowest projected point of the object (8 box corners; both rims of a cylinder) with
its front at the finish strip. The camera has no yaw for momentum (floor lines stay level in the
image, so the balls' rolling never reads as upward motion) and at most 6° otherwise. Truth in
``case.truth.quantities``: arrival times interpolated from the simulated states at sub-frame times;
momentum slides as the shift of the block's visible (segmentation) mask centroid, release to rest.

Variants by ``index % 4``: 640×360; 640×360 with a similar-coloured static distractor; 1920×1080 with
small objects; portrait 360×640. Geometry (tent or valley, ramp heights, camera pitch, look, hues
picked away from the floor and wall) comes from the seed. Helpers: :mod:`._kit_principia_slides`.
"""

from __future__ import annotations

import math
import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before mujoco is imported, as in the engine

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from lawful.world.scenes.pairs import ANTI_FACTOR  # noqa: E402
from lawful.world.studio import _kit_principia_slides as kit  # noqa: E402
from lawful.world.studio import engine as en  # noqa: E402
from lawful.world.studio.registry import scene  # noqa: E402
from lawful.world.styles import StyledCase  # noqa: E402

FPS = 24.0
G = en.G


@scene("principia", "friction")
def build_friction(index: int, seed: int, *, duration: float = 3.0) -> StyledCase:
    """Friction scene (a shorter ``duration`` only to make test clips cheaper)."""
    st, var, rng = kit.stage(seed, index, 1)
    valley = bool(rng.integers(2))
    theta = math.radians(float(rng.uniform(26, 34)))
    length = float(rng.uniform(0.95, 1.2))
    small = float(rng.uniform(0.085, 0.105))
    heavy = int(rng.integers(2))
    sides = [small, small]
    sides[heavy] = small * float(rng.uniform(1.3, 1.5))
    s0 = max(sides) + 0.05  # front lower edge of both blocks, m down the face from its top
    s_fin = length - 0.06
    t_arrive = float(rng.uniform(0.95, 1.3))
    a = 2 * (s_fin - s0) / t_arrive**2
    mu = math.tan(theta) - a / (G * math.cos(theta))
    run = 0.4
    faces = kit.race_faces(theta, length, valley, run)
    density = float(rng.uniform(500, 800))
    masses = [density * s**3 for s in sides]
    colors = kit.colors(rng, 3, kit.avoid(st))
    ramp_rgb = kit.ramp_rgb(rng)
    st.floor(**kit.VISUAL)
    kit.race_ramps(st, faces, valley, ramp_rgb)
    pairs = kit.Pairs()
    ids = ("block_1", "block_2")
    for i, (f, side) in enumerate(zip(faces, sides)):
        kit.plane(st, f"face{i}", f)
        kit.finish_strip(st, f, s_fin, (40, 36, 34))
        c = f.point(s0 - side / 2, side / 2 + 1e-4)
        b = st.body(ids[i], c, joint="free", euler=f.euler)
        b.geom(en.box(side / 2, side / 2, side / 2), colors[i], obj=ids[i], specular=0.25, mass=masses[i], **kit.VISUAL)
        pairs.add(f"face{i}", f"{ids[i]}_g0", f"face{i}", mu)
        pairs.add(f"floor{i}", f"{ids[i]}_g0", "floor", 0.45)
    st.extra.append(pairs.xml())
    # what the camera must see: ramps, blocks, the floor they slide onto
    pts = [f.top + [0, 0, max(sides) * 1.6] for f in faces] + [f.foot + f.dx * np.array([0.22, 0, 0]) for f in faces]
    if var.distractor:
        x = 0.0 if valley else faces[1].foot[0] + 0.25
        pos = np.array([x, 0.35, small / 2])
        kit.distractor_near(st, rng, colors[heavy], en.box(small / 2, small / 2, small / 2), pos)
        pts.append(pos + [0, 0, small])
    pts = np.array(pts + [p + [0, y, 0] for p in pts for y in (-kit.RAMP_DEPTH / 2, kit.RAMP_DEPTH / 2)])
    kit.fit_camera(st, pts, float(rng.uniform(-6, 6)), float(rng.uniform(6, 18)), float(rng.uniform(32, 45)), var.zoom)
    st.backdrop(y=float(rng.uniform(0.6, 1.1)))
    world = st.build()
    rec = world.simulate(duration, FPS)
    first = next(world.render(rec))
    masks = world.masks(rec)
    objects = [world.object_spec(o, "block", first, masks, mass=masses[i]) for i, o in enumerate(ids)]
    finish_y, arrival = {}, {}
    for i, (o, f, side) in enumerate(zip(ids, faces, sides)):
        at_finish = f.point(s_fin - side / 2, side / 2)
        corners = kit.box_corners(at_finish, f.euler[1], side / 2)
        finish_y[o] = round(float(max(world.project(p)[1] for p in corners)), 3)
        t, xyz = kit.flat(rec, world, o)
        arrival[o] = kit.crossing_time(t, (xyz - xyz[0]) @ f.u + s0, s_fin)
    known = {"finish_y": finish_y, "theta_deg": round(math.degrees(theta), 3), "mu": round(mu, 4),
             "geometry": "valley" if valley else "tent", "studio": {"variant": var.name},
             "anti_note": f"twin: heavy block's gravity x{ANTI_FACTOR}, light block's x1/{ANTI_FACTOR}"}
    quantities = {f"arrival_time_{o}": v for o, v in arrival.items() if v is not None}
    if len(quantities) == 2:
        quantities.update(F1=arrival["block_1"], F2=arrival["block_2"])
    size = ["small", "small"]
    size[heavy] = "large"
    where = ("on the two slopes of a tent-shaped wooden ramp, sliding outwards" if not valley else
             "at the tops of two identical wooden ramps that face each other, sliding inwards")
    prompt = (f"A fixed camera looks at two blocks of the same wood {where}; both slopes are equally steep. "
              f"A {size[0]} block sits on the left slope and a {size[1]} block on the right slope, the same distance "
              "above the dark lines painted near the bottom. Released together from rest, both slide down past the "
              "lines and onto the floor.")
    case = en.studio_case("principia", "friction", index, seed, prompt=prompt, duration=duration, fps=FPS,
                          width=st.width, height=st.height, objects=objects, known=known,
                          assumptions=["same surface material and slope angle on both faces",
                                       "released together from rest", "blocks slide without tipping"],
                          criteria=["friction"], variant=f"studio-{var.name}", quantities=quantities)
    scale = {ids[heavy]: ANTI_FACTOR, ids[1 - heavy]: 1 / ANTI_FACTOR}
    twin = en.gravity_scale(world, scale)
    return kit.styled(world, case, rec, lambda: world.simulate(duration, FPS, hook=twin), first)


def hollow_factor(q: float) -> float:
    """``I / (m R²)`` of a tube with inner/outer radius ratio ``q``."""
    return (1.0 + q * q) / 2.0


@scene("principia", "inertia")
def build_inertia(index: int, seed: int, *, duration: float = 3.0) -> StyledCase:
    """Inertia scene (``duration`` as in :func:`build_friction`)."""
    st, var, rng = kit.stage(seed, index, 2)
    valley = bool(rng.integers(2))
    theta = math.radians(float(rng.uniform(14, 22)))
    length = float(rng.uniform(1.0, 1.25))
    R = float(rng.uniform(0.07, 0.085))
    half = float(rng.uniform(0.045, 0.07))
    q = float(rng.uniform(0.5, 0.75))
    solid = int(rng.integers(2))
    hollow = [i != solid for i in range(2)]
    factors = [hollow_factor(q) if hollow[i] else 0.5 for i in range(2)]
    mass = float(rng.uniform(0.3, 0.6))
    s0 = R + 0.04  # contact point, m down the face from its top
    s_fin = length - 0.06
    faces = kit.race_faces(theta, length, valley, 0.4)
    colors = kit.colors(rng, 3, kit.avoid(st))
    st.floor(**kit.VISUAL)
    kit.race_ramps(st, faces, valley, kit.ramp_rgb(rng))
    pairs = kit.Pairs()
    ids = ("cylinder_1", "cylinder_2")
    for i, f in enumerate(faces):
        kit.plane(st, f"face{i}", f)
        kit.finish_strip(st, f, s_fin, (40, 36, 34))
        b = st.body(ids[i], f.point(s0, R + 1e-4), joint="free")
        k = factors[i]
        it = mass * (3 * R * R * (1 + (q * q if hollow[i] else 0)) + (2 * half) ** 2) / 12
        if hollow[i]:
            b.geom(en.cylinder(R, half), euler=(90, 0, 0), **kit.HIDDEN)
            b.geom(kit.tube(st, f"tube{i}", R, q * R, half), colors[i], obj=ids[i], specular=0.6, **kit.VISUAL)
        else:
            b.geom(en.cylinder(R, half), colors[i], obj=ids[i], euler=(90, 0, 0), specular=0.35, **kit.VISUAL)
        # explicit inertia (after the geoms: geom names count the body's parts): axis along y, I = k m R²
        b.parts.append(f'<inertial pos="0 0 0" mass="{mass:.6g}" '
                       f'diaginertia="{it:.6g} {k * mass * R * R:.6g} {it:.6g}"/>')
        pairs.add(f"face{i}", f"{ids[i]}_g0", f"face{i}", 1.2)
        pairs.add(f"floor{i}", f"{ids[i]}_g0", "floor", 1.0, condim=6, roll=0.03)
    st.extra.append(pairs.xml())
    pts = [f.top + [0, 0, 2.4 * R] for f in faces] + [f.foot + f.dx * np.array([0.25, 0, 0]) for f in faces]
    if var.distractor:
        x = 0.0 if valley else faces[1].foot[0] + 0.3
        pos = np.array([x, 0.35, R])
        kit.distractor_near(st, rng, colors[solid], en.cylinder(R, half), pos)
        pts.append(pos + [0, 0, R])
    pts = np.array(pts + [p + [0, y, 0] for p in pts for y in (-kit.RAMP_DEPTH / 2, kit.RAMP_DEPTH / 2)])
    kit.fit_camera(st, pts, float(rng.uniform(-6, 6)), float(rng.uniform(4, 14)), float(rng.uniform(32, 45)), var.zoom)
    st.backdrop(y=float(rng.uniform(0.6, 1.1)))
    world = st.build()
    rec = world.simulate(duration, FPS)
    first = next(world.render(rec))
    masks = world.masks(rec)
    objects = [world.object_spec(o, "hollow_cylinder" if hollow[i] else "cylinder", first, masks,
                                 inertia_factor=factors[i], mass=mass) for i, o in enumerate(ids)]
    finish_y, arrival = {}, {}
    for i, (o, f) in enumerate(zip(ids, faces)):
        rim = kit.rim_points(f.point(s_fin, R), R, half)
        finish_y[o] = round(float(max(world.project(p)[1] for p in rim)), 3)
        t, xyz = kit.flat(rec, world, o)
        arrival[o] = kit.crossing_time(t, (xyz - xyz[0]) @ f.u + s0, s_fin)
    known = {"finish_y": finish_y, "theta_deg": round(math.degrees(theta), 3), "inner_ratio": round(q, 4),
             "geometry": "valley" if valley else "tent", "studio": {"variant": var.name},
             "anti_note": f"twin: the tube's gravity x{ANTI_FACTOR}, the solid cylinder's x1/{ANTI_FACTOR}"}
    quantities = {f"arrival_time_{o}": v for o, v in arrival.items() if v is not None}
    if len(quantities) == 2:
        quantities.update(F1=arrival[ids[0]] / arrival[ids[1]],
                          F2=math.sqrt((1 + factors[0]) / (1 + factors[1])))
    kind = ["hollow tube" if h else "solid cylinder" for h in hollow]
    where = ("the two slopes of a tent-shaped wooden ramp" if not valley else
             "two identical wooden ramps that face each other")
    prompt = (f"A fixed camera looks at {where}, equally steep, seen from the front. A {kind[0]} rests near the top "
              f"of the left slope and a {kind[1]} with the same mass and outer radius near the top of the right "
              "slope, the same distance above the dark lines painted near the bottom, their axes pointing at the "
              "camera. Released together from rest, both roll down without slipping, past the lines.")
    case = en.studio_case("principia", "inertia", index, seed, prompt=prompt, duration=duration, fps=FPS,
                          width=st.width, height=st.height, objects=objects, known=known,
                          assumptions=["rolling without slipping", "equal mass and outer radius",
                                       "equal slope angles", "released together from rest"],
                          criteria=["inertia"], variant=f"studio-{var.name}", quantities=quantities)
    scale = {ids[i]: (ANTI_FACTOR if hollow[i] else 1 / ANTI_FACTOR) for i in range(2)}
    twin = en.gravity_scale(world, scale)
    return kit.styled(world, case, rec, lambda: world.simulate(duration, FPS, hook=twin), first)


# ----------------------------------------------------------------------------- momentum

BALL_R, BALL_MASS = 0.045, 0.14  # rubber balls
RESTITUTION = 0.65  # ball on block
BALL_ROLL = 0.004  # rolling friction (m) of a ball on the floor: it stops soon after the hit


def build_momentum(variant: str, index: int, seed: int, *, duration: float = 2.5) -> StyledCase:
    """Momentum scene (``variant`` height or mass; ``duration`` as in :func:`build_friction`)."""
    st, var, rng = kit.stage(seed, index, 3 if variant == "height" else 4)
    theta = math.radians(float(rng.uniform(28, 36)))
    if variant == "height":
        tall = float(rng.uniform(0.3, 0.42))
        higher = int(rng.integers(2))
        rises = [tall / float(rng.uniform(1.6, 2.5))] * 2
        rises[higher] = tall
        sides = [float(rng.uniform(0.075, 0.09))] * 2
    else:
        rises = [float(rng.uniform(0.28, 0.4))] * 2
        small = float(rng.uniform(0.07, 0.08))
        heavy = int(rng.integers(2))
        sides = [small, small]
        sides[heavy] = small * float(rng.uniform(1.3, 1.45))
    density = float(rng.uniform(600, 750))
    masses = [density * s**3 for s in sides]
    gap0 = float(rng.uniform(0.04, 0.2))  # between the ramps' tall ends
    foot_x = max(h / math.tan(theta) for h in rises) + gap0 / 2
    faces = []
    for i, (dx, h) in enumerate(zip((-1, 1), rises)):
        run = h / math.tan(theta)
        faces.append(kit.Face(np.array([dx * (foot_x - run), 0.0, h]), dx, theta, h / math.sin(theta)))
    gaps = [float(rng.uniform(0.08, 0.14))] * 2  # floor between each foot and its block
    # floor friction: the farther block slides ~0.25-0.35 m (estimate: the ball keeps cos θ of its speed at the kink)
    v_floor = [math.cos(theta) * math.sqrt(2 * G * (h - BALL_R * (1 - math.cos(theta))) / 1.4) for h in rises]
    v_blk = [(1 + RESTITUTION) * BALL_MASS * v / (BALL_MASS + M) for v, M in zip(v_floor, masses)]
    mu = float(np.clip(max(v_blk) ** 2 / (2 * G * float(rng.uniform(0.25, 0.35))), 0.12, 0.6))
    colors = kit.colors(rng, 4, kit.avoid(st))
    ramp_rgb = kit.ramp_rgb(rng)
    st.floor(**kit.VISUAL)
    pairs = kit.Pairs()
    balls, blocks = ("ball_1", "ball_2"), ("block_1", "block_2")
    solref = en.restitution_solref(RESTITUTION)
    for i, f in enumerate(faces):
        kit.wedge(st, f"ramp_mesh{i}", f, ramp_rgb)
        kit.plane(st, f"face{i}", f)
        bb = st.body(balls[i], f.point(BALL_R + 0.012, BALL_R + 1e-4), joint="free")  # 12 mm below the top edge
        bb.geom(en.sphere(BALL_R), colors[i], obj=balls[i], specular=0.3, mass=BALL_MASS, **kit.VISUAL)
        a = sides[i]
        kb = st.body(blocks[i], (f.foot[0] + f.dx * (gaps[i] + a / 2), 0.0, a / 2 + 1e-4), joint="free")
        kb.geom(en.box(a / 2, a / 2, a / 2), colors[2 + i], obj=blocks[i], specular=0.2, mass=masses[i], **kit.VISUAL)
        pairs.add(f"ramp{i}", f"{balls[i]}_g0", f"face{i}", 1.0)
        pairs.add(f"ballfloor{i}", f"{balls[i]}_g0", "floor", 1.0, condim=6, roll=BALL_ROLL)
        pairs.add(f"blockfloor{i}", f"{blocks[i]}_g0", "floor", mu)
        pairs.add(f"hit{i}", f"{balls[i]}_g0", f"{blocks[i]}_g0", 0.2, solref=solref, solimp="0.99 0.99 0.001")
    st.extra.append(pairs.xml())
    reach = 0.4  # m beyond each foot the camera keeps in view
    pts = [f.top + [0, 0, 2.5 * BALL_R] for f in faces] + [f.foot + [f.dx * reach, 0, max(sides) * 1.5] for f in faces]
    pts += [f.foot + [f.dx * reach, 0, 0] for f in faces]
    if var.distractor:
        # a look-alike of ball_1 beyond where block_2 stops, a little behind its lane
        pos = np.array([faces[1].foot[0] + reach + 0.12, 0.25, BALL_R])
        kit.distractor_near(st, rng, colors[0], en.sphere(BALL_R), pos)
        pts.append(pos + [0, 0, BALL_R])
    pts = np.array(pts + [p + [0, y, 0] for p in pts for y in (-kit.RAMP_DEPTH / 2, kit.RAMP_DEPTH / 2)])
    # no yaw: lines along x on the floor stay level in the image
    kit.fit_camera(st, pts, 0.0, float(rng.uniform(5, 16)), float(rng.uniform(32, 45)), var.zoom)
    st.backdrop(y=float(rng.uniform(0.6, 1.1)))
    world = st.build()
    rec = world.simulate(duration, FPS)
    first = next(world.render(rec))
    masks = world.masks(rec)
    # known height: the ball centre's release height above the floor (m), what a user would measure
    starts = [f.point(BALL_R + 0.012, BALL_R)[2] for f in faces]
    objects = [world.object_spec(o, "sphere", first, masks, mass=BALL_MASS, height=round(float(starts[i]), 4))
               for i, o in enumerate(balls)]
    objects += [world.object_spec(o, "block", first, masks, mass=masses[i]) for i, o in enumerate(blocks)]
    # slide in the image: shift of the block's visible mask centroid from release to the clip's last state
    # (the block is at rest by then and never comes back; the mask, not the projected centre, since
    # perspective shows more of a block's side face the farther it slides)
    end = world.masks(en.Recording(rec.times[-1:], rec.qpos[-1:], rec.mocap[-1:], rec.xpos[-1:]))
    slides_m, slides_px = [], []
    for o in blocks:
        t, xyz = kit.flat(rec, world, o)
        slides_m.append(float(np.max(np.abs(xyz[:, 0] - xyz[0, 0]))))
        slides_px.append(abs(float(np.nonzero(end[o])[1].mean() - np.nonzero(masks[o])[1].mean())))
    far = higher if variant == "height" else 1 - heavy
    quantities = {f"slide_{o}": s for o, s in zip(blocks, slides_px)}
    quantities.update(F1=slides_px[far], F2=slides_px[1 - far])
    known = {"theta_deg": round(math.degrees(theta), 3), "rise_m": [round(h, 4) for h in rises],
             "block_floor_mu": round(mu, 4), "restitution": RESTITUTION, "slide_m": [round(s, 4) for s in slides_m],
             "studio": {"variant": var.name},
             "anti_note": "twin: each block's floor friction rescaled so the two slides swap"}
    if variant == "height":
        setup = (f"Two wooden wedge ramps of the same slope stand back to back on the floor, the "
                 f"{'left' if higher == 0 else 'right'} one about {rises[higher] / rises[1 - higher]:.1f} times "
                 "as tall as the other. A rubber ball rests at the top of each. On the floor beyond the foot of "
                 "each ramp stands a wooden block; the two blocks are identical.")
    else:
        size = ["smaller, lighter", "smaller, lighter"]
        size[heavy] = "bigger, heavier"
        setup = ("Two identical wooden wedge ramps stand back to back on the floor, a rubber ball at the top of "
                 f"each. On the floor beyond the foot of each ramp stands a block of the same wood; the left "
                 f"block is {size[0]} and the right one {size[1]}.")
    prompt = ("A fixed camera looks from the front at an experiment on the floor. " + setup + " Both balls are let go "
              "together, roll down and across the floor and hit their blocks head-on; the blocks slide away from the "
              "ramps and stop.")
    task = f"momentum_{variant}"
    case = en.studio_case("principia", task, index, seed, prompt=prompt, duration=duration, fps=FPS,
                          width=st.width, height=st.height, objects=objects, known=known,
                          assumptions=["identical balls", "same floor under both blocks", "rolling without slipping",
                                       "head-on collisions along the floor"],
                          criteria=["momentum"], variant=f"studio-{var.name}", quantities=quantities)

    def anti() -> en.Recording:
        fr = world.model.pair_friction
        rows = [mujoco.mj_name2id(world.model, mujoco.mjtObj.mjOBJ_PAIR, f"blockfloor{i}") for i in range(2)]
        keep = fr[rows].copy()
        try:
            for i, row in enumerate(rows):
                fr[row, :2] = mu * slides_m[i] / max(slides_m[1 - i], 1e-4)
            return world.simulate(duration, FPS)
        finally:
            fr[rows] = keep

    return kit.styled(world, case, rec, anti, first)


scene("principia", "momentum_height")(lambda index, seed: build_momentum("height", index, seed))
scene("principia", "momentum_mass")(lambda index, seed: build_momentum("mass", index, seed))
