"""Geometry, look and camera helpers of the studio ramp scenes (Principia friction, inertia, momentum).

Ramp faces (:class:`Face`), prism and tube meshes with flat shading, hidden exact collision planes,
named contact pairs, hue picking away from the backdrop, a camera fitted to the scene, and the
:class:`~lawful.world.styles.StyledCase` wrapper whose clips all start from the shared release frame.
World: x right, y into the scene, z up (metres); the engine's pinhole for pixels.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass

import numpy as np

from lawful.world.studio import engine as en
from lawful.world.styles import StyledCase

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


def prism(st: en.Stage, name: str, poly: list[tuple[float, float]], depth: float = RAMP_DEPTH) -> dict:
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


def tube(st: en.Stage, name: str, r_out: float, r_in: float, half: float, n: int = 48) -> dict:
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


def plane(st: en.Stage, name: str, face: Face) -> str:
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


def finish_strip(st: en.Stage, face: Face, s: float, rgb) -> None:
    """A thin painted line across the face at arc length ``s`` (visual only)."""
    c = face.point(s, 0.0006)
    st.fixed(en.box(0.004, RAMP_DEPTH / 2 * 0.98, 0.0006), c, rgb, 0.1, euler=face.euler, **VISUAL)


# ----------------------------------------------------------------------------- look and camera


def variant(index: int) -> Variant:
    return VARIANTS[int(index) % len(VARIANTS)]


def colors(rng: np.random.Generator, k: int, avoid=()) -> list[tuple[int, int, int]]:
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


def avoid(st: en.Stage) -> list:
    return [*st.look.floor_rgb, *st.look.wall]


def ramp_rgb(rng: np.random.Generator) -> tuple[int, int, int]:
    h, s, v = float(rng.uniform(0.07, 0.13)), float(rng.uniform(0.12, 0.3)), float(rng.uniform(0.55, 0.8))
    return tuple(int(round(255 * c)) for c in colorsys.hsv_to_rgb(h, s, v))


def project(cam, w: int, h: int, p) -> np.ndarray:
    """Same pinhole as :meth:`engine.World.project`, for a camera tuple before the world is built."""
    pos, right, up, fovy = cam
    f = (h / 2) / math.tan(math.radians(fovy) / 2)
    q = np.asarray(p, float) - pos
    z = q @ np.cross(up, right)
    return np.array([w / 2 - 0.5 + f * (q @ right) / z, h / 2 - 0.5 - f * (q @ up) / z])


def fit_camera(st: en.Stage, pts: np.ndarray, yaw_deg: float, pitch_deg: float, fovy: float, zoom: float,
                margin: float = 0.07) -> None:
    """Place the camera (given yaw and downward pitch) at the distance where ``pts`` just fit, times ``zoom``."""
    w, h = st.width, st.height
    centre = 0.5 * (pts.min(axis=0) + pts.max(axis=0))
    yaw, pitch = math.radians(yaw_deg), math.radians(pitch_deg)
    back = np.array([math.cos(pitch) * math.sin(yaw), -math.cos(pitch) * math.cos(yaw), math.sin(pitch)])

    def fits(dist: float) -> bool:
        st.camera(centre + dist * back, centre, fovy)
        uv = np.array([project(st.cam, w, h, p) for p in pts])
        return bool((uv[:, 0] > margin * w).all() and (uv[:, 0] < (1 - margin) * w).all()
                    and (uv[:, 1] > margin * h).all() and (uv[:, 1] < (1 - margin) * h).all())

    lo, hi = 0.3, 40.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    st.camera(centre + hi * zoom * back, centre, fovy)


def stage(seed: int, index: int, tag: int) -> tuple[en.Stage, Variant, np.random.Generator]:
    var = variant(index)
    w, h = en.SIZES[var.size]
    st = en.Stage((int(seed) & 0xFFFFFFFF) * 31 + tag * 7 + int(index), width=w, height=h)
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, tag, int(index), 0x511DE])
    return st, var, rng


def box_corners(centre: np.ndarray, euler_y_deg: float, half: float) -> np.ndarray:
    phi = math.radians(euler_y_deg)
    rot = np.array([[math.cos(phi), 0, math.sin(phi)], [0, 1, 0], [-math.sin(phi), 0, math.cos(phi)]])
    c = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float) * half
    return centre + c @ rot.T


def rim_points(centre: np.ndarray, radius: float, half: float, n: int = 180) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.stack([radius * np.cos(a), np.zeros(n), radius * np.sin(a)], axis=1)
    return np.concatenate([centre + ring + [0, y, 0] for y in (-half, half)])


def crossing_time(times: np.ndarray, values: np.ndarray, level: float) -> float | None:
    """First time ``values`` (increasing) reaches ``level``, linearly interpolated."""
    k = np.nonzero(values >= level)[0]
    if not len(k) or k[0] == 0:
        return None
    j = int(k[0])
    f = (level - values[j - 1]) / (values[j] - values[j - 1])
    return float(times[j - 1] + f * (times[j] - times[j - 1]))


def flat(rec: en.Recording, world: en.World, body: str) -> tuple[np.ndarray, np.ndarray]:
    """All sub-frame samples of ``body``'s position, in time order: ``(t[N], xyz[N, 3])``."""
    bid = world.id("body", body)
    t = rec.times.reshape(-1)
    order = np.argsort(t, kind="stable")
    return t[order], rec.xpos.reshape(-1, rec.xpos.shape[2], 3)[order, bid]


def styled(world: en.World, case, rec_law: en.Recording, anti, first: np.ndarray) -> StyledCase:
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


def distractor_near(st: en.Stage, rng: np.random.Generator, rgb, shape: dict, pos) -> None:
    st.distractor(shape, pos, rgb, spread=float(rng.uniform(8, 16)))


# ----------------------------------------------------------------------------- friction and inertia


def race_faces(theta: float, length: float, valley: bool, run: float) -> list[Face]:
    """Two faces of equal angle and length: a tent (apex at x = 0) or a valley (feet ``2 run`` apart)."""
    rise = length * math.sin(theta)
    if not valley:
        apex = np.array([0.0, 0.0, rise])
        return [Face(apex, -1, theta, length), Face(apex, 1, theta, length)]
    half = run + length * math.cos(theta)
    return [Face(np.array([-half, 0.0, rise]), 1, theta, length), Face(np.array([half, 0.0, rise]), -1, theta, length)]


def race_ramps(st: en.Stage, faces: list[Face], valley: bool, rgb) -> None:
    if not valley:
        l, r = faces[0].foot, faces[1].foot
        poly = [(l[0], 0.0), (r[0], 0.0), (faces[0].top[0], faces[0].top[2])]
        st.fixed(prism(st, "ramp_mesh", poly), (0, 0, 0), rgb, 0.15, **VISUAL)
    else:
        for i, f in enumerate(faces):
            wedge(st, f"ramp_mesh{i}", f, rgb)


def wedge(st: en.Stage, name: str, f: Face, rgb) -> None:
    """A right-angled wedge ramp under face ``f`` (vertical back at its top edge)."""
    poly = [(f.foot[0], 0.0), (f.top[0], 0.0), (f.top[0], f.top[2])]
    st.fixed(prism(st, name, poly if ccw(poly) else poly[::-1]), (0, 0, 0), rgb, 0.15, **VISUAL)


def ccw(poly) -> bool:
    """Counter-clockwise in the x–z plane seen from -y (x right, z up)."""
    a = sum(x0 * z1 - x1 * z0 for (x0, z0), (x1, z1) in zip(poly, poly[1:] + poly[:1]))
    return a > 0
