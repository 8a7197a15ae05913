"""Kit of the studio scenes of the WMLE region-reading tasks (P16–P23, P29–P33).

- :func:`kinematic` — a :class:`~lawful.world.studio.engine.Recording` whose joint positions are given
  by a closed form ``qpos_of(t) -> [nq]`` at the engine's sub-frame times (motion a rigid-body
  simulation cannot give: a liquid's surface, a law written as a formula), so blur, flicker, noise and
  jitter are the engine's own;
- :func:`glass`, :func:`emissive` — translucent and self-lit materials (the engine's are opaque);
- :func:`slide_body` — a body on a vertical or horizontal slide joint (driven kinematically);
- :func:`band_of` — a probe's column band inside a vertical cylinder, from the projected geometry;
- :class:`Tilt` — a camera turned about its optical axis (MuJoCo's free camera cannot roll): the scene is
  rendered on a larger canvas with the same focal length, turned and cut to the frame, and only then
  degraded (noise, flicker, jitter at the output size), with points and masks mapped alike;
- :func:`build_lit` — a stage lit by the lights given instead of the engine's key and fill lights (a
  single lamp whose shadows are the measurement);
- :func:`mesh` — a convex solid from its vertices (a liquid whose top is a given plane);
- :func:`beam`, :func:`laser`, :func:`image_frame`, :func:`measured_rgb` — light beams in a plane facing the
  camera: a thin self-lit rod, a laser pointer's body, the plane's image axes, a colour read off a frame;
- :func:`jar`, :func:`level_camera` — a square glass jar with dark corner posts on a wooden base holding a liquid
  box on a slide joint (its top the level), and a camera level with a given height (P26–P28);
- :func:`coil` — a solenoid: a copper drum wound with raised turns, along x or z (P30, P33).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from types import SimpleNamespace

import cv2
import mujoco
import numpy as np

from lawful.world import liquids as lq
from lawful.world.studio import engine as E


def glass(st: E.Stage, rgb, alpha: float, specular: float = 0.8, reflectance: float = 0.0,
          emission: float = 0.0) -> str:
    """A material of colour ``rgb`` (0–255) with opacity ``alpha`` (MuJoCo blends it over what is behind)."""
    name = f"mat{len(st._mats)}"
    st._mats[("rgba", name)] = name
    rgba = tuple(round(c / 255.0, 4) for c in rgb) + (round(float(alpha), 4),)
    st.asset_xml.append(f'<material name="{name}" rgba="{E._vec(rgba)}" specular="{specular:.3g}" '
                        f'shininess="0.9" reflectance="{reflectance:.3g}" emission="{emission:.3g}"/>')
    return name


def emissive(st: E.Stage, rgb, emission: float = 1.0) -> str:
    """An opaque, self-lit material (a glowing beam or lamp): shading barely changes its colour."""
    return glass(st, rgb, 1.0, specular=0.0, emission=emission)


def slide_body(st: E.Stage, name: str, pos, axis=(0, 0, 1)) -> E.Body:
    """A body on a slide joint ``<name>_j`` along ``axis`` (its qpos is the displacement from ``pos``)."""
    return st.body(name, pos=pos, joint=E.Joint("slide", axis=axis, name=f"{name}_j"))


def qadr(world: E.World, joint: str) -> int:
    """Index in qpos of a 1-dof joint."""
    return int(world.model.jnt_qposadr[world.model.joint(joint).id])


def kinematic(world: E.World, duration: float, fps: float, qpos_of: Callable[[float], np.ndarray] | None = None,
              mocap: dict[str, tuple] | None = None) -> E.Recording:
    """States at the sub-frame times :meth:`~lawful.world.studio.engine.World.simulate` would use, with
    ``qpos = qpos_of(t)`` (a closed form: nothing is integrated) and mocap bodies held where ``mocap``
    says (by body name; others where the model put them); mocap arms are driven as usual."""
    m, d = world.model, mujoco.MjData(world.model)
    for name, pos in (mocap or {}).items():
        d.mocap_pos[m.body_mocapid[world.id("body", name)]] = pos
    n = max(1, int(round(duration * fps)))
    dt = duration / n
    S = world.look.subframes
    offs = (np.arange(S) - (S - 1) / 2) / S * world.look.shutter * dt
    want = np.clip(np.arange(n)[:, None] * dt + offs[None, :], 0.0, None)
    qpos = np.zeros((n, S, m.nq))
    mocap = np.zeros((n, S, m.nmocap, 3))
    xpos = np.zeros((n, S, m.nbody, 3))
    for i in range(n):
        for s in range(S):
            d.time = float(want[i, s])
            if qpos_of is not None:
                d.qpos[:] = qpos_of(d.time)
            world._drive(d)
            mujoco.mj_kinematics(m, d)
            qpos[i, s], mocap[i, s], xpos[i, s] = d.qpos, d.mocap_pos, d.xpos
    return E.Recording(want.copy(), qpos, mocap, xpos)


def band_of(world: E.World, axis_xy, r_in: float, z0: float, z1: float, share: float = 0.5,
            pad_px: float = 3.0) -> list[float]:
    """``[x0, y0, x1, y1]`` (px): the central ``share`` of a vertical cylinder's inside (radius ``r_in`` about
    the vertical through ``axis_xy``), between heights ``z0 < z1`` pulled in by ``pad_px`` at both ends."""
    x, y = axis_xy
    cx, ya = world.project((x, y, z1))
    _, yb = world.project((x, y, z0))
    half = share * r_in * world.px_per_m((x, y, 0.5 * (z0 + z1)))
    return [round(cx - half, 2), round(ya + pad_px, 2), round(cx + half, 2), round(yb - pad_px, 2)]


def mesh(st: E.Stage, name: str, vertices) -> str:
    """Register a convex mesh asset ``name`` from world-frame ``vertices`` ``[N, 3]`` (a geom of it on a body at
    the origin, unrotated, sits where the vertices say)."""
    v = " ".join(f"{float(c):.6g}" for c in np.asarray(vertices, float).ravel())
    st.asset_xml.append(f'<mesh name="{name}" vertex="{v}"/>')
    return name


class Tilt:
    """A camera rolled by ``deg`` (counter-clockwise on screen) for an output frame ``(w, h)``.

    Use: ``t = Tilt(deg, (w, h))``; build the stage at ``t.canvas``; after framing the camera for the output
    size call ``t.fix_fov(stage)`` (same focal length on the canvas); render with ``t.frames(world, rec)``;
    map canvas points with ``t.point`` and masks with ``t.mask``. ``deg = 0`` is the identity.
    """

    def __init__(self, deg: float, out: tuple[int, int]):
        self.deg, self.out = float(deg), (int(out[0]), int(out[1]))
        w, h = self.out
        c, s = abs(math.cos(math.radians(deg))), abs(math.sin(math.radians(deg)))
        self.canvas = (w, h) if deg == 0 else (int(math.ceil(w * c + h * s)) + 4, int(math.ceil(w * s + h * c)) + 4)
        self.M = lq.rotation_matrix(self.canvas, self.out, self.deg)

    def fix_fov(self, st: E.Stage, out_fovy: float) -> None:
        pos, right, up, _ = st.cam
        f = 0.5 * self.out[1] / math.tan(math.radians(out_fovy) / 2)
        st.cam = (pos, right, up, math.degrees(2 * math.atan(0.5 * self.canvas[1] / f)))

    def point(self, p) -> tuple[float, float]:
        q = lq.to_output(self.M, [p])[0]
        return float(q[0]), float(q[1])

    def image(self, img: np.ndarray, interp=cv2.INTER_LINEAR) -> np.ndarray:
        if self.deg == 0:
            return img
        return cv2.warpAffine(img, self.M, self.out, flags=interp, borderMode=cv2.BORDER_REFLECT)

    def mask(self, m: np.ndarray) -> np.ndarray:
        return self.image(m.astype(np.float32)) > 0.5

    def frames(self, world: E.World, rec: E.Recording) -> Iterator[np.ndarray]:
        """The world's frames turned and cut to the output, then blurred, flickered, jittered and noised as
        :meth:`~lawful.world.studio.engine.World.render` does (same seeds), at the output size."""
        if self.deg == 0:
            yield from world.render(rec)
            return
        rng = np.random.default_rng([world.stage.seed, 0xF11])
        shim = SimpleNamespace(look=world.look, width=self.out[0], height=self.out[1])
        shift = np.zeros(2)
        for i, img in enumerate(world.render(rec, effects=False)):
            out = E.World._effects(shim, self.image(img.astype(np.float32)), rng, shift, i)
            yield np.clip(np.rint(out), 0, 255).astype(np.uint8)


def beam(st: E.Stage, a, b, rgb, radius: float, body: E.Body | None = None, emission: float = 0.9) -> None:
    """A visible light beam from ``a`` to ``b``: a thin self-lit capsule (static, or on ``body``), casting no shadow."""
    mat = emissive(st, rgb, emission)
    g = f'<geom type="capsule" size="{radius:.5g}" fromto="{E._vec(a)} {E._vec(b)}" material="{mat}" ' \
        'contype="0" conaffinity="0" group="1"/>'
    (body.parts if body is not None else st.static).append(g)


def laser(st: E.Stage, tip, direction, radius: float = 0.011, length: float = 0.09) -> None:
    """A laser pointer's dark body behind its aperture ``tip``, aimed along ``direction``."""
    d = np.asarray(direction, float) / np.linalg.norm(direction)
    tip = np.asarray(tip, float)
    back = tip - d * length
    mat = st.material((52, 54, 60), 0.6)
    st.static.append(f'<geom type="cylinder" size="{radius:.5g}" fromto="{E._vec(back)} {E._vec(tip - 0.004 * d)}" '
                     f'material="{mat}" contype="0" conaffinity="0"/>')


def image_frame(world: E.World, c, u, n) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """A point ``c`` and two world directions in a plane facing the camera as image ``(c_px, u_px, n_px,
    px per m)`` (unit image directions)."""
    c = np.asarray(c, float)
    cp = np.array(world.project(c))
    ppm = world.px_per_m(c)

    def unit(v):
        w = np.array(world.project(c + 0.05 * np.asarray(v, float))) - cp
        return w / np.linalg.norm(w)

    return cp, unit(u), unit(n), ppm


def measured_rgb(frame: np.ndarray, pts) -> tuple[int, int, int]:
    """Median colour of ``frame`` at pixel points ``[[x, y], …]`` inside it."""
    h, w = frame.shape[:2]
    p = np.rint(np.asarray(pts, float)).astype(int)
    p = p[(p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)]
    return tuple(int(v) for v in np.median(frame[p[:, 1], p[:, 0]], axis=0))


def build_msaa(st: E.Stage, samples: int = 4) -> E.World:
    """Compile ``st`` rendering with ``samples``-fold multisampling: edges are area-sampled as a camera's
    pixels integrate light (a liquid level read to a tenth of a pixel needs it; the engine renders aliased)."""
    if st.cam is None:
        raise ValueError("Stage.camera() was not called")
    xml = re.sub(r'offsamples="\d+"', f'offsamples="{int(samples)}"', st.xml())
    return E.World(st, mujoco.MjModel.from_xml_string(xml, st.assets))


def build_lit(st: E.Stage, lights: str, headlight: float = 0.08, shadowsize: int = 2048) -> E.World:
    """Compile ``st`` with ``lights`` (MJCF ``<light …/>`` elements) in place of the engine's key and fill
    lights, a headlight of diffuse ``headlight`` (ambient as the look says) and ``shadowsize`` shadow maps."""
    xml = re.sub(r'<light name="(key|fill)"[^>]*/>', "", st.xml(), count=2)
    xml = xml.replace("<worldbody>", "<worldbody>" + lights, 1)
    xml = re.sub(r'(<headlight [^>]*diffuse=")[^"]*"', rf'\g<1>{headlight:.3g} {headlight:.3g} {headlight:.3g}"', xml)
    xml = re.sub(r'shadowsize="\d+"', f'shadowsize="{int(shadowsize)}"', xml)
    if st.cam is None:
        raise ValueError("Stage.camera() was not called")
    return E.World(st, mujoco.MjModel.from_xml_string(xml, st.assets))


WOOD = (150, 108, 66)


def jar(st: E.Stage, rng: np.random.Generator, name: str, x: float, w: float, dp: float, z_b: float, z_top: float,
        liquid, alpha: float = 0.5, specular: float = 0.4) -> str:
    """A square glass jar (inside ``w`` × ``dp`` about ``(x, 0)``, inner bottom ``z_b`` on an opaque wooden base, rim
    ``z_top``) with dark corner posts, holding a translucent ``liquid`` box on the slide joint ``<name>_j`` (its qpos
    is the level's height). Returns the liquid's material."""
    post = 0.007
    st.fixed(E.box(0.5 * w + post + 0.01, 0.5 * dp + post + 0.01, 0.5 * z_b), (x, 0, 0.5 * z_b), WOOD, 0.25)
    gmat = glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.06, 0.1)), specular=0.3)
    st.static.append(f'<geom type="box" size="{0.5 * w + 0.002:.5g} {0.5 * dp + 0.002:.5g} {0.5 * (z_top - z_b):.5g}" '
                     f'pos="{x:.5g} 0 {0.5 * (z_top + z_b):.5g}" material="{gmat}" contype="0" conaffinity="0"/>')
    wall = tuple(int(v) for v in np.clip(np.asarray(lq.WALL) + rng.uniform(-8, 8, 3), 0, 255))
    for sx in (-1, 1):
        for sy in (-1, 1):
            st.fixed(E.box(0.5 * post, 0.5 * post, 0.5 * (z_top - z_b)),
                     (x + sx * (0.5 * w + 0.5 * post), sy * (0.5 * dp + 0.5 * post), 0.5 * (z_top + z_b)), wall, 0.4,
                     **E.NO_CONTACT)
    lmat = glass(st, liquid, alpha, specular=specular)
    span = z_top + 0.2
    b = slide_body(st, name, (x, 0.0, 0.0))
    b.parts.append(f'<geom name="{name}_g" type="box" size="{0.5 * w - 0.0005:.5g} {0.5 * dp - 0.0005:.5g} '
                   f'{0.5 * span:.5g}" pos="0 0 {-0.5 * span:.5g}" material="{lmat}" contype="0" conaffinity="0"/>')
    return lmat


def level_camera(st: E.Stage, rng: np.random.Generator, variant, lo, hi, z: float) -> dict:
    """Frame the x–z rectangle ``[lo, hi]`` (no tilt) with the camera's centre level with height ``z``: a liquid
    surface at ``z`` is seen edge-on (a line, not a band)."""
    from lawful.world.studio import _wmle_p08_p15 as C

    half = max(hi[1] - z, z - lo[1])
    cam = C.frame_camera(st, rng, variant, (lo[0], z - half), (hi[0], z + half), max_tilt_deg=0.0)
    pos, right, up, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z]), right, up, fov)
    cam["pos"][2] = cam["lookat"][2] = round(z, 4)
    return cam


def near_clip(world: E.World, extent: float = 2.0) -> E.World:
    """Cap the model's extent (a parked parameter body 20 m down makes it ~36 m): MuJoCo's near clip plane is
    ``0.01 × extent`` in front of the camera, which would cut a jar filmed from 0.4 m away."""
    world.model.stat.extent = min(float(world.model.stat.extent), extent)
    return world


def coil(st: E.Stage, centre, axis: str, length: float, radius: float, turns: int, rgb, obj: str | None = None) -> None:
    """A solenoid about ``centre`` along ``axis`` (``"x"`` or ``"z"``): an opaque copper drum of ``radius`` with
    ``turns`` raised windings a shade lighter (geoms tagged ``obj`` when given)."""
    c = np.asarray(centre, float)
    u = np.array([1.0, 0, 0]) if axis == "x" else np.array([0, 0, 1.0])
    euler = (0, 90, 0) if axis == "x" else None
    dark = tuple(int(0.8 * v) for v in rgb)
    st.fixed(E.cylinder(radius, 0.5 * length), tuple(c), dark, 0.6, euler=euler, obj=obj, **E.NO_CONTACT)
    pitch = length / turns
    for i in range(turns):
        p = c + u * (-0.5 * length + (i + 0.5) * pitch)
        st.fixed(E.cylinder(radius * 1.06, 0.3 * pitch), tuple(p), rgb, 0.7, euler=euler, obj=obj, **E.NO_CONTACT)
