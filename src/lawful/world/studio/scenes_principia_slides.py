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
its front at the finish strip. The camera has no yaw for momentum (floor lines stay horizontal in the
image, so the balls' rolling never reads as upward motion) and ≤ 6° otherwise.

Variants by ``index % 4``: 640×360; 640×360 with a similar-coloured distractor; 1920×1080 with small
objects; portrait 360×640. Geometry (tent/valley, ramp heights, camera pitch, look) comes from the seed.
"""

from __future__ import annotations

import colorsys
import math
import os
from dataclasses import dataclass

os.environ.setdefault("MUJOCO_GL", "egl")  # before mujoco is imported, as in the engine

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from lawful.suites.principia._scene import ANTI_FACTOR  # noqa: E402
from lawful.world.studio import engine as en  # noqa: E402
from lawful.world.studio.registry import scene  # noqa: E402
from lawful.world.styles import StyledCase  # noqa: E402

FPS = 24.0
G = en.G
RAMP_DEPTH = 0.34  # m, extent of every ramp along y (towards the wall)
HIDDEN = {"group": "3", "contype": "0", "conaffinity": "0"}  # collision-only geoms (not rendered)
VISUAL = {"contype": "0", "conaffinity": "0"}


@dataclass(frozen=True)
class Variant:
    name: str
    size: str  # engine.SIZES key
    zoom: float  # camera distance × this after fitting the scene (> 1: smaller objects)
    distractor: bool = False


VARIANTS = (Variant("640x360", "default", 1.05), Variant("640x360-distractor", "default", 1.1, True),
            Variant("1080p-small", "hd", 2.0), Variant("portrait", "portrait", 1.05))


# ----------------------------------------------------------------------------- geometry


@dataclass(frozen=True)
class Face:
    """A ramp face in the x–z plane: ``top`` (its upper edge at y = 0), descending along ``dx`` (±1 in x)."""

    top: np.ndarray
    dx: int
    theta: float
    length: float

    @property
    def u(self) -> np.ndarray:  # down the slope
        return np.array([self.dx * math.cos(self.theta), 0.0, -math.sin(self.theta)])

    @property
    def n(self) -> np.ndarray:  # outward normal
        return np.array([self.dx * math.sin(self.theta), 0.0, math.cos(self.theta)])

    @property
    def foot(self) -> np.ndarray:
        return self.top + self.length * self.u

    @property
    def euler(self) -> tuple[float, float, float]:
        """MJCF euler (degrees) turning a body's +z onto the face normal."""
        return (0.0, math.degrees(self.dx * self.theta), 0.0)

    def point(self, s: float, up: float = 0.0) -> np.ndarray:
        return self.top + s * self.u + up * self.n


def _prism(st: en.Stage, name: str, poly: list[tuple[float, float]], depth: float = RAMP_DEPTH) -> dict:
    """A convex prism mesh (x–z polygon, counter-clockwise seen from -y) extruded over ``|y| <= depth/2``.

    Every face has its own vertices, so MuJoCo shades the faces flat.
    """
    h = depth / 2
    front = [(x, -h, z) for x, z in poly]
    back = [(x, h, z) for x, z in poly]
    verts, faces = [], []

    def quad(a, b, c, d):
        k = len(verts)
        verts.extend([a, b, c, d])
        faces.extend([(k, k + 1, k + 2), (k, k + 2, k + 3)])

    n = len(poly)
    k = len(verts)
    verts.extend(front)
    faces.extend((k, k + i, k + i + 1) for i in range(1, n - 1))
    k = len(verts)
    verts.extend(back)
    faces.extend((k, k + i + 1, k + i) for i in range(1, n - 1))
    for i in range(n):
        j = (i + 1) % n
        quad(front[i], back[i], back[j], front[j])
    vs = " ".join(f"{v:.6g}" for p in verts for v in p)
    fs = " ".join(str(i) for f in faces for i in f)
    st.asset_xml.append(f'<mesh name="{name}" vertex="{vs}" face="{fs}"/>')
    return {"type": "mesh", "mesh": name}


def _tube(st: en.Stage, name: str, r_out: float, r_in: float, half: float, n: int = 48) -> dict:
    """A thick-walled tube mesh, axis along y (its ends at ``y = ±half``)."""
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = [(math.cos(a), math.sin(a)) for a in ang]
    verts, faces = [], []

    def add(pts):
        k = len(verts)
        verts.extend(pts)
        return k

    for r, sgn in ((r_out, 1), (r_in, -1)):  # side walls, normals outwards (outer) / inwards (inner)
        k = add([(r * c, y, r * s) for c, s in ring for y in (-half, half)])
        for i in range(n):
            a0, a1, b0, b1 = k + 2 * i, k + 2 * i + 1, k + 2 * ((i + 1) % n), k + 2 * ((i + 1) % n) + 1
            faces.extend([(a0, b0, b1), (a0, b1, a1)] if sgn > 0 else [(a0, b1, b0), (a0, a1, b1)])
    for y, sgn in ((-half, -1), (half, 1)):  # end rings
        k = add([(r * c, y, r * s) for c, s in ring for r in (r_out, r_in)])
        for i in range(n):
            o0, i0, o1, i1 = k + 2 * i, k + 2 * i + 1, k + 2 * ((i + 1) % n), k + 2 * ((i + 1) % n) + 1
            faces.extend([(o0, i0, i1), (o0, i1, o1)] if sgn > 0 else [(o0, i1, i0), (o0, o1, i1)])
    vs = " ".join(f"{v:.6g}" for p in verts for v in p)
    fs = " ".join(str(i) for f in faces for i in f)
    st.asset_xml.append(f'<mesh name="{name}" vertex="{vs}" face="{fs}" inertia="shell"/>')
    return {"type": "mesh", "mesh": name}


def _plane(st: en.Stage, name: str, face: Face) -> str:
    """The face's exact collision plane (infinite; hidden)."""
    st.static.append(f'<geom name="{name}" type="plane" size="0.05 0.05 0.01" pos="{en._vec(face.top)}" '
                     f'euler="{en._vec(face.euler)}" group="3" contype="0" conaffinity="0"/>')
    return name


class Pairs:
    """Explicit contact pairs (the only contacts in these scenes), named (MuJoCo reorders their rows)."""

    def __init__(self):
        self.rows: list[str] = []

    def add(self, name: str, g1: str, g2: str, mu: float, condim: int = 3, roll: float = 1e-4,
            solref: str | None = None, solimp: str | None = None) -> None:
        extra = (f' solref="{solref}"' if solref else "") + (f' solimp="{solimp}"' if solimp else "")
        self.rows.append(f'<pair name="{name}" geom1="{g1}" geom2="{g2}" condim="{condim}" '
                         f'friction="{mu:.6g} {mu:.6g} 0.005 {roll:.6g} {roll:.6g}"{extra}/>')

    def xml(self) -> str:
        return "<contact>" + "".join(self.rows) + "</contact>"


def _finish_strip(st: en.Stage, face: Face, s: float, rgb) -> None:
    """A thin painted line across the face at arc length ``s`` (visual only)."""
    c = face.point(s, 0.0006)
    st.fixed(en.box(0.004, RAMP_DEPTH / 2 * 0.98, 0.0006), c, rgb, 0.1, euler=face.euler, **VISUAL)


# ----------------------------------------------------------------------------- look and camera


def _variant(index: int) -> Variant:
    return VARIANTS[int(index) % len(VARIANTS)]


def _colors(rng: np.random.Generator, k: int, avoid=()) -> list[tuple[int, int, int]]:
    """``k`` saturated colours whose hues are picked one by one as far as possible from each other, from the
    coloured ``avoid`` colours (0-1 RGB: floor and wall) and from the wooden ramps' orange."""
    bad = [0.09] + [colorsys.rgb_to_hsv(*c)[0] for c in avoid if colorsys.rgb_to_hsv(*c)[1] > 0.12]
    grid = np.arange(360) / 360.0
    hues: list[float] = []
    for _ in range(k):
        taken = np.array(bad + hues)
        d = np.abs(grid[:, None] - taken[None, :])
        gap = np.minimum(d, 1 - d).min(axis=1) + rng.uniform(0, 0.01, len(grid))  # small random tie-break
        hues.append(float(grid[int(np.argmax(gap))]))
    out = []
    for h in hues:
        s, v = float(rng.uniform(0.7, 0.92)), float(rng.uniform(0.72, 0.95))
        out.append(tuple(int(round(255 * c)) for c in colorsys.hsv_to_rgb(h, s, v)))
    order = rng.permutation(k)
    return [out[i] for i in order]


def _avoid(st: en.Stage) -> list:
    return [*st.look.floor_rgb, *st.look.wall]


def _ramp_rgb(rng: np.random.Generator) -> tuple[int, int, int]:
    h, s, v = float(rng.uniform(0.07, 0.13)), float(rng.uniform(0.12, 0.3)), float(rng.uniform(0.55, 0.8))
    return tuple(int(round(255 * c)) for c in colorsys.hsv_to_rgb(h, s, v))


def _project(cam, w: int, h: int, p) -> np.ndarray:
    """Same pinhole as :meth:`engine.World.project`, for a camera tuple before the world is built."""
    pos, right, up, fovy = cam
    f = (h / 2) / math.tan(math.radians(fovy) / 2)
    q = np.asarray(p, float) - pos
    z = q @ np.cross(up, right)
    return np.array([w / 2 - 0.5 + f * (q @ right) / z, h / 2 - 0.5 - f * (q @ up) / z])


def _fit_camera(st: en.Stage, pts: np.ndarray, yaw_deg: float, pitch_deg: float, fovy: float, zoom: float,
                margin: float = 0.07) -> None:
    """Place the camera (given yaw and downward pitch) at the distance where ``pts`` just fit, times ``zoom``."""
    w, h = st.width, st.height
    centre = 0.5 * (pts.min(axis=0) + pts.max(axis=0))
    yaw, pitch = math.radians(yaw_deg), math.radians(pitch_deg)
    back = np.array([math.cos(pitch) * math.sin(yaw), -math.cos(pitch) * math.cos(yaw), math.sin(pitch)])

    def fits(dist: float) -> bool:
        st.camera(centre + dist * back, centre, fovy)
        uv = np.array([_project(st.cam, w, h, p) for p in pts])
        return bool((uv[:, 0] > margin * w).all() and (uv[:, 0] < (1 - margin) * w).all()
                    and (uv[:, 1] > margin * h).all() and (uv[:, 1] < (1 - margin) * h).all())

    lo, hi = 0.3, 40.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    st.camera(centre + hi * zoom * back, centre, fovy)


def _stage(seed: int, index: int, tag: int) -> tuple[en.Stage, Variant, np.random.Generator]:
    var = _variant(index)
    w, h = en.SIZES[var.size]
    st = en.Stage((int(seed) & 0xFFFFFFFF) * 31 + tag * 7 + int(index), width=w, height=h)
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, tag, int(index), 0x511DE])
    return st, var, rng


def _box_corners(centre: np.ndarray, euler_y_deg: float, half: float) -> np.ndarray:
    phi = math.radians(euler_y_deg)
    rot = np.array([[math.cos(phi), 0, math.sin(phi)], [0, 1, 0], [-math.sin(phi), 0, math.cos(phi)]])
    c = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float) * half
    return centre + c @ rot.T


def _rim_points(centre: np.ndarray, radius: float, half: float, n: int = 180) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.stack([radius * np.cos(a), np.zeros(n), radius * np.sin(a)], axis=1)
    return np.concatenate([centre + ring + [0, y, 0] for y in (-half, half)])


def _crossing_time(times: np.ndarray, values: np.ndarray, level: float) -> float | None:
    """First time ``values`` (increasing) reaches ``level``, linearly interpolated."""
    k = np.nonzero(values >= level)[0]
    if not len(k) or k[0] == 0:
        return None
    j = int(k[0])
    f = (level - values[j - 1]) / (values[j] - values[j - 1])
    return float(times[j - 1] + f * (times[j] - times[j - 1]))


def _flat(rec: en.Recording, world: en.World, body: str) -> tuple[np.ndarray, np.ndarray]:
    """All sub-frame samples of ``body``'s position, in time order: ``(t[N], xyz[N, 3])``."""
    bid = world.id("body", body)
    t = rec.times.reshape(-1)
    order = np.argsort(t, kind="stable")
    return t[order], rec.xpos.reshape(-1, rec.xpos.shape[2], 3)[order, bid]


def _styled(world: en.World, case, rec_law: en.Recording, anti, first: np.ndarray) -> StyledCase:
    """StyledCase whose ``render(law)`` simulates lazily and starts every clip with ``first``."""
    recs = {"true": rec_law}

    def render(law: str):
        if law not in recs:
            if law != "anti":
                raise ValueError(f"law must be 'true' or 'anti', not {law!r}")
            recs[law] = anti()
        frames = world.render(recs[law])
        next(frames)  # frame 0 is the shared release frame (the twin differs only after release)
        yield first
        yield from frames

    return StyledCase(case, first, render)


def _distractor_near(st: en.Stage, rng: np.random.Generator, rgb, shape: dict, pos) -> None:
    st.distractor(shape, pos, rgb, spread=float(rng.uniform(8, 16)))


# ----------------------------------------------------------------------------- friction and inertia


def _race_faces(rng: np.random.Generator, theta: float, length: float, valley: bool, run: float) -> list[Face]:
    """Two faces of equal angle and length: a tent (apex at x = 0) or a valley (feet ``2 run`` apart)."""
    rise = length * math.sin(theta)
    if not valley:
        apex = np.array([0.0, 0.0, rise])
        return [Face(apex, -1, theta, length), Face(apex, 1, theta, length)]
    half = run + length * math.cos(theta)
    return [Face(np.array([-half, 0.0, rise]), 1, theta, length), Face(np.array([half, 0.0, rise]), -1, theta, length)]


def _race_ramps(st: en.Stage, faces: list[Face], valley: bool, rgb) -> None:
    if not valley:
        l, r = faces[0].foot, faces[1].foot
        poly = [(l[0], 0.0), (r[0], 0.0), (faces[0].top[0], faces[0].top[2])]
        st.fixed(_prism(st, "ramp_mesh", poly), (0, 0, 0), rgb, 0.15, **VISUAL)
    else:
        for i, f in enumerate(faces):
            _wedge(st, f"ramp_mesh{i}", f, rgb)


def _wedge(st: en.Stage, name: str, f: Face, rgb) -> None:
    """A right-angled wedge ramp under face ``f`` (vertical back at its top edge)."""
    poly = [(f.foot[0], 0.0), (f.top[0], 0.0), (f.top[0], f.top[2])]
    st.fixed(_prism(st, name, poly if _ccw(poly) else poly[::-1]), (0, 0, 0), rgb, 0.15, **VISUAL)


def _ccw(poly) -> bool:
    """Counter-clockwise in the x–z plane seen from -y (x right, z up)."""
    a = sum(x0 * z1 - x1 * z0 for (x0, z0), (x1, z1) in zip(poly, poly[1:] + poly[:1]))
    return a > 0


@scene("principia", "friction")
def build_friction(index: int, seed: int, *, duration: float = 3.0) -> StyledCase:
    """Friction scene (a shorter ``duration`` only to make test clips cheaper)."""
    st, var, rng = _stage(seed, index, 1)
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
    faces = _race_faces(rng, theta, length, valley, run)
    density = float(rng.uniform(500, 800))
    masses = [density * s**3 for s in sides]
    colors = _colors(rng, 3, _avoid(st))
    ramp_rgb = _ramp_rgb(rng)
    st.floor(**VISUAL)
    _race_ramps(st, faces, valley, ramp_rgb)
    pairs = Pairs()
    ids = ("block_1", "block_2")
    for i, (f, side) in enumerate(zip(faces, sides)):
        _plane(st, f"face{i}", f)
        _finish_strip(st, f, s_fin, (40, 36, 34))
        c = f.point(s0 - side / 2, side / 2 + 1e-4)
        b = st.body(ids[i], c, joint="free", euler=f.euler)
        b.geom(en.box(side / 2, side / 2, side / 2), colors[i], obj=ids[i], specular=0.25, mass=masses[i], **VISUAL)
        pairs.add(f"face{i}", f"{ids[i]}_g0", f"face{i}", mu)
        pairs.add(f"floor{i}", f"{ids[i]}_g0", "floor", 0.45)
    st.extra.append(pairs.xml())
    # what the camera must see: ramps, blocks, the floor they slide onto
    pts = [f.top + [0, 0, max(sides) * 1.6] for f in faces] + [f.foot + f.dx * np.array([0.22, 0, 0]) for f in faces]
    if var.distractor:
        x = 0.0 if valley else faces[1].foot[0] + 0.25
        pos = np.array([x, 0.35, small / 2])
        _distractor_near(st, rng, colors[heavy], en.box(small / 2, small / 2, small / 2), pos)
        pts.append(pos + [0, 0, small])
    pts = np.array(pts + [p + [0, y, 0] for p in pts for y in (-RAMP_DEPTH / 2, RAMP_DEPTH / 2)])
    _fit_camera(st, pts, float(rng.uniform(-6, 6)), float(rng.uniform(6, 18)), float(rng.uniform(32, 45)), var.zoom)
    st.backdrop(y=float(rng.uniform(0.6, 1.1)))
    world = st.build()
    rec = world.simulate(duration, FPS)
    first = next(world.render(rec))
    masks = world.masks(rec)
    objects = [world.object_spec(o, "block", first, masks, mass=masses[i]) for i, o in enumerate(ids)]
    finish_y, arrival = {}, {}
    for i, (o, f, side) in enumerate(zip(ids, faces, sides)):
        at_finish = f.point(s_fin - side / 2, side / 2)
        corners = _box_corners(at_finish, f.euler[1], side / 2)
        finish_y[o] = round(float(max(world.project(p)[1] for p in corners)), 3)
        t, xyz = _flat(rec, world, o)
        arrival[o] = _crossing_time(t, (xyz - xyz[0]) @ f.u + s0, s_fin)
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
    return _styled(world, case, rec, lambda: world.simulate(duration, FPS, hook=en.gravity_scale(world, scale)), first)


def hollow_factor(q: float) -> float:
    """``I / (m R²)`` of a tube with inner/outer radius ratio ``q``."""
    return (1.0 + q * q) / 2.0


@scene("principia", "inertia")
def build_inertia(index: int, seed: int, *, duration: float = 3.0) -> StyledCase:
    """Inertia scene (``duration`` as in :func:`build_friction`)."""
    st, var, rng = _stage(seed, index, 2)
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
    faces = _race_faces(rng, theta, length, valley, 0.4)
    colors = _colors(rng, 3, _avoid(st))
    st.floor(**VISUAL)
    _race_ramps(st, faces, valley, _ramp_rgb(rng))
    pairs = Pairs()
    ids = ("cylinder_1", "cylinder_2")
    for i, f in enumerate(faces):
        _plane(st, f"face{i}", f)
        _finish_strip(st, f, s_fin, (40, 36, 34))
        b = st.body(ids[i], f.point(s0, R + 1e-4), joint="free")
        k = factors[i]
        it = mass * (3 * R * R * (1 + (q * q if hollow[i] else 0)) + (2 * half) ** 2) / 12
        if hollow[i]:
            b.geom(en.cylinder(R, half), euler=(90, 0, 0), **HIDDEN)
            b.geom(_tube(st, f"tube{i}", R, q * R, half), colors[i], obj=ids[i], specular=0.6, **VISUAL)
        else:
            b.geom(en.cylinder(R, half), colors[i], obj=ids[i], euler=(90, 0, 0), specular=0.35, **VISUAL)
        # explicit inertia (after the geoms: geom names count the body's parts): axis along y, I = k m R²
        b.parts.append(f'<inertial pos="0 0 0" mass="{mass:.6g}" diaginertia="{it:.6g} {k * mass * R * R:.6g} {it:.6g}"/>')
        pairs.add(f"face{i}", f"{ids[i]}_g0", f"face{i}", 1.2)
        pairs.add(f"floor{i}", f"{ids[i]}_g0", "floor", 1.0, condim=6, roll=0.03)
    st.extra.append(pairs.xml())
    pts = [f.top + [0, 0, 2.4 * R] for f in faces] + [f.foot + f.dx * np.array([0.25, 0, 0]) for f in faces]
    if var.distractor:
        x = 0.0 if valley else faces[1].foot[0] + 0.3
        pos = np.array([x, 0.35, R])
        _distractor_near(st, rng, colors[solid], en.cylinder(R, half), pos)
        pts.append(pos + [0, 0, R])
    pts = np.array(pts + [p + [0, y, 0] for p in pts for y in (-RAMP_DEPTH / 2, RAMP_DEPTH / 2)])
    _fit_camera(st, pts, float(rng.uniform(-6, 6)), float(rng.uniform(4, 14)), float(rng.uniform(32, 45)), var.zoom)
    st.backdrop(y=float(rng.uniform(0.6, 1.1)))
    world = st.build()
    rec = world.simulate(duration, FPS)
    first = next(world.render(rec))
    masks = world.masks(rec)
    objects = [world.object_spec(o, "hollow_cylinder" if hollow[i] else "cylinder", first, masks,
                                 inertia_factor=factors[i], mass=mass) for i, o in enumerate(ids)]
    finish_y, arrival = {}, {}
    for i, (o, f) in enumerate(zip(ids, faces)):
        rim = _rim_points(f.point(s_fin, R), R, half)
        finish_y[o] = round(float(max(world.project(p)[1] for p in rim)), 3)
        t, xyz = _flat(rec, world, o)
        arrival[o] = _crossing_time(t, (xyz - xyz[0]) @ f.u + s0, s_fin)
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
    return _styled(world, case, rec, lambda: world.simulate(duration, FPS, hook=en.gravity_scale(world, scale)), first)


# ----------------------------------------------------------------------------- momentum

BALL_R, BALL_MASS = 0.045, 0.14  # rubber balls
RESTITUTION = 0.65  # ball on block
BLOCK_FLOOR_MU = 0.3
BALL_ROLL = 0.004  # rolling friction (m) of a ball on the floor: it stops soon after the hit


def build_momentum(variant: str, index: int, seed: int, *, duration: float = 2.5) -> StyledCase:
    """Momentum scene (``variant`` height or mass; ``duration`` as in :func:`build_friction`)."""
    st, var, rng = _stage(seed, index, 3 if variant == "height" else 4)
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
        faces.append(Face(np.array([dx * (foot_x - run), 0.0, h]), dx, theta, h / math.sin(theta)))
    gaps = [float(rng.uniform(0.08, 0.14))] * 2  # floor between each foot and its block
    # floor friction: the farther block slides ~0.25-0.35 m (estimate: the ball keeps cos θ of its speed at the kink)
    v_floor = [math.cos(theta) * math.sqrt(2 * G * (h - BALL_R * (1 - math.cos(theta))) / 1.4) for h in rises]
    v_blk = [(1 + RESTITUTION) * BALL_MASS * v / (BALL_MASS + M) for v, M in zip(v_floor, masses)]
    mu = float(np.clip(max(v_blk) ** 2 / (2 * G * float(rng.uniform(0.25, 0.35))), 0.12, 0.6))
    colors = _colors(rng, 4, _avoid(st))
    ramp_rgb = _ramp_rgb(rng)
    st.floor(**VISUAL)
    pairs = Pairs()
    balls, blocks = ("ball_1", "ball_2"), ("block_1", "block_2")
    solref = en.restitution_solref(RESTITUTION)
    for i, f in enumerate(faces):
        _wedge(st, f"ramp_mesh{i}", f, ramp_rgb)
        _plane(st, f"face{i}", f)
        bb = st.body(balls[i], f.point(BALL_R + 0.012, BALL_R + 1e-4), joint="free")
        bb.geom(en.sphere(BALL_R), colors[i], obj=balls[i], specular=0.3, mass=BALL_MASS, **VISUAL)
        a = sides[i]
        kb = st.body(blocks[i], (f.foot[0] + f.dx * (gaps[i] + a / 2), 0.0, a / 2 + 1e-4), joint="free")
        kb.geom(en.box(a / 2, a / 2, a / 2), colors[2 + i], obj=blocks[i], specular=0.2, mass=masses[i], **VISUAL)
        pairs.add(f"ramp{i}", f"{balls[i]}_g0", f"face{i}", 1.0)
        pairs.add(f"ballfloor{i}", f"{balls[i]}_g0", "floor", 1.0, condim=6, roll=BALL_ROLL)
        pairs.add(f"blockfloor{i}", f"{blocks[i]}_g0", "floor", mu)
        pairs.add(f"hit{i}", f"{balls[i]}_g0", f"{blocks[i]}_g0", 0.2, solref=solref, solimp="0.99 0.99 0.001")
    st.extra.append(pairs.xml())
    reach = 0.4  # m beyond each foot the camera keeps in view
    pts = [f.top + [0, 0, 2.5 * BALL_R] for f in faces] + [f.foot + [f.dx * reach, 0, max(sides) * 1.5] for f in faces]
    pts += [f.foot + [f.dx * reach, 0, 0] for f in faces]
    if var.distractor:
        pos = np.array([faces[1].foot[0] + 0.2, 0.4, BALL_R])
        _distractor_near(st, rng, colors[0], en.sphere(BALL_R), pos)
        pts.append(pos + [0, 0, BALL_R])
    pts = np.array(pts + [p + [0, y, 0] for p in pts for y in (-RAMP_DEPTH / 2, RAMP_DEPTH / 2)])
    # no yaw: lines along x on the floor stay level in the image
    _fit_camera(st, pts, 0.0, float(rng.uniform(5, 16)), float(rng.uniform(32, 45)), var.zoom)
    st.backdrop(y=float(rng.uniform(0.6, 1.1)))
    world = st.build()
    rec = world.simulate(duration, FPS)
    first = next(world.render(rec))
    masks = world.masks(rec)
    objects = [world.object_spec(o, "sphere", first, masks, mass=BALL_MASS) for o in balls]
    objects += [world.object_spec(o, "block", first, masks, mass=masses[i]) for i, o in enumerate(blocks)]
    # slide in the image: shift of the block's visible mask centroid from release to the clip's last state
    # (the block is at rest by then and never comes back; the mask, not the projected centre, since
    # perspective shows more of a block's side face the farther it slides)
    end = world.masks(en.Recording(rec.times[-1:], rec.qpos[-1:], rec.mocap[-1:], rec.xpos[-1:]))
    slides_m, slides_px = [], []
    for o in blocks:
        t, xyz = _flat(rec, world, o)
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
        setup = (f"Two identical wooden wedge ramps of the same slope stand back to back on the floor, the "
                 f"{'left' if higher == 0 else 'right'} one about {rises[higher] / rises[1 - higher]:.1f} times as tall "
                 "as the other. A rubber ball rests at the top of each. On the floor beyond the foot of each ramp "
                 "stands a wooden block; the two blocks are identical.")
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

    return _styled(world, case, rec, anti, first)


scene("principia", "momentum_height")(lambda index, seed: build_momentum("height", index, seed))
scene("principia", "momentum_mass")(lambda index, seed: build_momentum("mass", index, seed))
