"""Small local MuJoCo kit of the WMLE P8–P15 studio scenes: stage, camera, simulation record, camera effects.

Written while the shared studio engine was not yet available; kept small. A :class:`Studio` renders a
recorded :class:`Trajectory` through a fixed perspective :class:`Camera` with sub-frame motion blur,
sensor noise, lighting flicker and sub-pixel camera jitter (frame 0 has no jitter, so the first frame
is reproducible). Image coordinates follow lawful's convention: pixel centres at integers, origin top
left, y down.
"""

from __future__ import annotations

import colorsys
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

os.environ.setdefault("MUJOCO_GL", "egl")
import mujoco  # noqa: E402

BLUR_SUBFRAMES = 3
EXPOSURE = 0.5  # fraction of the frame interval the shutter is open
NOISE_SIGMA = 2.0  # sensor noise (grey levels)
FLICKER = 0.012  # relative std of the per-frame lighting gain
JITTER_PX = 0.35  # std of the per-frame camera shake (px)


@dataclass(frozen=True)
class Variant:
    name: str
    size: tuple[int, int]  # width, height
    fill: float  # fraction of the frame the scene's region of interest spans (the tighter side)
    distractor: bool = False


VARIANTS = (Variant("640x360", (640, 360), 0.82), Variant("1080p-small", (1920, 1080), 0.42),
            Variant("portrait", (360, 640), 0.86), Variant("832x480-distractor", (832, 480), 0.78, True))


def variant_of(index: int) -> Variant:
    return VARIANTS[int(index) % len(VARIANTS)]


@dataclass(frozen=True)
class Look:
    wall: str  # texture MJCF attributes
    floor: str
    light_pos: tuple[float, float, float]
    wall_y: float


def _grey(rng: np.random.Generator, v_lo: float, v_hi: float, s_max: float = 0.15) -> tuple[float, float, float]:
    return colorsys.hsv_to_rgb(float(rng.uniform(0, 1)), float(rng.uniform(0.0, s_max)), float(rng.uniform(v_lo, v_hi)))


def _rgb(c) -> str:
    return " ".join(f"{v:.3f}" for v in c)


def random_look(rng: np.random.Generator, variant: Variant) -> Look:
    """Backdrop and floor textures (low saturation), light placement."""
    kind = ["checker", "gradient", "flat"][int(rng.integers(3))]
    w1 = _grey(rng, 0.55, 0.85)
    w2 = tuple(np.clip(np.array(w1) * rng.uniform(0.8, 0.95), 0, 1))
    mark = ' mark="random" random="0.04" markrgb="%s"' % _rgb(np.array(w1) * 0.7)
    wall = f'type="2d" builtin="{kind}" rgb1="{_rgb(w1)}" rgb2="{_rgb(w2)}" width="512" height="512"{mark}'
    f1 = _grey(rng, 0.25, 0.5, 0.25)
    f2 = tuple(np.array(f1) * 0.85)
    floor = (f'type="2d" builtin="checker" rgb1="{_rgb(f1)}" rgb2="{_rgb(f2)}" width="512" height="512" '
             f'mark="edge" markrgb="{_rgb(np.array(f1) * 0.6)}"')
    light = (float(rng.uniform(-1.2, 1.2)), float(rng.uniform(-2.5, -1.5)), float(rng.uniform(2.0, 3.0)))
    return Look(wall, floor, light, float(rng.uniform(0.18, 0.4)))


def world_xml(look: Look, world: str, timestep: float = 0.0005) -> str:
    """A complete MJCF: studio stage (textured back wall, floor, key light with shadows) around ``world``."""
    lx, ly, lz = look.light_pos
    return f"""<mujoco model="studio">
  <option timestep="{timestep}" integrator="RK4"/>
  <visual><global offwidth="1920" offheight="1920"/><quality shadowsize="1024" offsamples="0"/>
    <headlight ambient=".32 .32 .32" diffuse=".22 .22 .22" specular="0 0 0"/></visual>
  <asset>
    <texture name="wall" {look.wall}/>
    <material name="wall" texture="wall" texrepeat="6 3"/>
    <texture name="floor" {look.floor}/>
    <material name="floor" texture="floor" texrepeat="8 8" reflectance="0.04"/>
    <material name="metal" rgba=".6 .62 .66 1" specular=".9" shininess=".9"/>
    <material name="wood" rgba=".62 .5 .36 1" specular=".1" shininess=".2"/>
    <material name="glossy" specular=".55" shininess=".65"/>
  </asset>
  <worldbody>
    <light pos="{lx:.3f} {ly:.3f} {lz:.3f}" dir="{-lx:.3f} {-ly:.3f} {-lz + 0.6:.3f}" castshadow="true"
           diffuse=".72 .72 .7" specular=".35 .35 .35"/>
    <geom name="floor" type="plane" size="6 6 .1" material="floor"/>
    <geom name="wall" type="box" pos="0 {look.wall_y + 0.01:.3f} 2" size="6 .01 2" material="wall"/>
    {world}
  </worldbody>
</mujoco>"""


PALETTE_HUES = (0.0, 0.08, 0.14, 0.33, 0.47, 0.58, 0.72, 0.86)  # red, orange, yellow, green, teal, blue, violet, pink


def object_rgbs(rng: np.random.Generator, k: int, min_sep: float = 0.2) -> list[tuple[int, int, int]]:
    """``k`` saturated object colours whose hues differ by at least ``min_sep`` (fraction of the circle)."""
    out, hues = [], []
    for h in rng.permutation(PALETTE_HUES):
        h = float(h + rng.uniform(-0.015, 0.015)) % 1.0
        if all(min(abs(h - g), 1 - abs(h - g)) >= min_sep for g in hues):
            hues.append(h)
            v = 0.85 if 0.1 < h < 0.2 else float(rng.uniform(0.72, 0.88))
            out.append(tuple(int(round(255 * c)) for c in colorsys.hsv_to_rgb(h, float(rng.uniform(0.75, 0.9)), v)))
        if len(out) == k:
            return out
    raise ValueError("palette too small")


def similar_rgb(rng: np.random.Generator, rgb) -> tuple[int, int, int]:
    """A colour close to ``rgb`` (hue within ~0.03, slightly different value): a distractor."""
    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    h = (h + float(rng.choice([-1, 1])) * float(rng.uniform(0.015, 0.035))) % 1.0
    v = float(np.clip(v * rng.uniform(0.85, 1.1), 0, 1))
    return tuple(int(round(255 * c)) for c in colorsys.hsv_to_rgb(h, s, v))


@dataclass
class Camera:
    """A fixed perspective camera: position, orthonormal axes (x right, y up, looking along -z), vertical fov."""

    pos: np.ndarray
    x: np.ndarray
    y: np.ndarray
    fovy: float  # degrees
    width: int
    height: int

    @property
    def z(self) -> np.ndarray:
        return np.cross(self.x, self.y)

    @property
    def focal(self) -> float:
        return 0.5 * self.height / math.tan(math.radians(self.fovy) / 2)

    def xml(self) -> str:
        return (f'<camera name="studio" pos="{_rgb(self.pos)}" xyaxes="{_rgb(self.x)} {_rgb(self.y)}" '
                f'fovy="{self.fovy:.4f}"/>')

    def project(self, p: np.ndarray) -> np.ndarray:
        """World point ``[3]`` → image point ``[2]`` (px; pixel centres at integers)."""
        d = np.asarray(p, float) - self.pos
        depth = -float(d @ self.z)
        u = 0.5 * self.width + self.focal * float(d @ self.x) / depth - 0.5
        v = 0.5 * self.height - self.focal * float(d @ self.y) / depth - 0.5
        return np.array([u, v])

    def scale_at(self, p: np.ndarray) -> float:
        """Pixels per metre for a small length facing the camera at ``p``."""
        return self.focal / -float((np.asarray(p, float) - self.pos) @ self.z)

    def describe(self) -> dict:
        return {"pos": [round(float(v), 4) for v in self.pos], "forward": [round(float(v), 4) for v in -self.z],
                "fovy_deg": round(self.fovy, 3)}


def look_camera(pos, target, fovy: float, width: int, height: int) -> Camera:
    pos, target = np.asarray(pos, float), np.asarray(target, float)
    f = target - pos
    f /= np.linalg.norm(f)
    x = np.cross(f, [0.0, 0.0, 1.0])
    x /= np.linalg.norm(x)
    y = np.cross(x, f)
    return Camera(pos, x, y, float(fovy), int(width), int(height))


def frame_camera(rng: np.random.Generator, variant: Variant, lo: np.ndarray, hi: np.ndarray, depth_y: float = 0.0,
                 max_tilt_deg: float = 0.6) -> Camera:
    """A camera in front (-y) of the plane ``y = depth_y`` that frames the x–z rectangle ``[lo, hi]``.

    The rectangle spans ``variant.fill`` of the frame on its tighter side; the camera's yaw and pitch
    stay within ``max_tilt_deg`` of facing the plane, and the rectangle is placed off-centre a little.
    """
    W, H = variant.size
    fovy = float(rng.uniform(28.0, 42.0))
    fy = 0.5 * H / math.tan(math.radians(fovy) / 2)
    size = np.asarray(hi, float) - np.asarray(lo, float)
    # distance at which the rectangle spans `fill` of the frame (tighter side)
    dist = max(fy * size[0] / (variant.fill * W), fy * size[1] / (variant.fill * H))
    centre = 0.5 * (np.asarray(lo, float) + np.asarray(hi, float))
    slack = (1 - variant.fill) * 0.35
    shift = np.array([rng.uniform(-slack, slack) * W, rng.uniform(-slack, slack) * H]) * dist / fy
    yaw, pitch = (math.radians(float(rng.uniform(-max_tilt_deg, max_tilt_deg))) for _ in range(2))
    fwd = np.array([math.sin(yaw) * math.cos(pitch), math.cos(yaw) * math.cos(pitch), math.sin(pitch)])
    target = np.array([centre[0] - shift[0], depth_y, centre[1] + shift[1]])
    return look_camera(target - dist * fwd, target, fovy, W, H)


@dataclass
class Trajectory:
    """Simulated generalized positions ``qpos [T, nq]`` at times ``t [T]`` (s); before ``t[0]`` the first state."""

    t: np.ndarray
    qpos: np.ndarray

    def at(self, model, t: float) -> np.ndarray:
        t = float(np.clip(t, self.t[0], self.t[-1]))
        i = int(np.clip(np.searchsorted(self.t, t) - 1, 0, len(self.t) - 2))
        w = (t - self.t[i]) / (self.t[i + 1] - self.t[i])
        q = (1 - w) * self.qpos[i] + w * self.qpos[i + 1]
        for j in range(model.njnt):  # renormalise quaternions of free and ball joints
            a = model.jnt_qposadr[j]
            if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
                q[a + 3:a + 7] /= np.linalg.norm(q[a + 3:a + 7])
            elif model.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
                q[a:a + 4] /= np.linalg.norm(q[a:a + 4])
        return q

    def body_pos(self, model, body: str, times: np.ndarray, offset=(0.0, 0.0, 0.0)) -> np.ndarray:
        """World position ``[T, 3]`` of a point fixed in ``body`` (body-frame ``offset``) at ``times``."""
        data = mujoco.MjData(model)
        bid = model.body(body).id
        out = []
        for t in times:
            data.qpos[:] = self.at(model, t)
            mujoco.mj_kinematics(model, data)
            out.append(data.xpos[bid] + data.xmat[bid].reshape(3, 3) @ np.asarray(offset, float))
        return np.array(out)

    def hinge_period(self, model, joint: str) -> float | None:
        """Mean full period (s) of a hinge's swing from its upward zero crossings."""
        a = self.qpos[:, model.jnt_qposadr[model.joint(joint).id]]
        s = np.signbit(a)
        idx = np.flatnonzero(s[:-1] & ~s[1:])
        if len(idx) < 2:
            return None
        tc = self.t[idx] - a[idx] * (self.t[idx + 1] - self.t[idx]) / (a[idx + 1] - a[idx])
        return float(np.mean(np.diff(tc)))


def simulate(model, data, duration: float, control: Callable | None = None, every: int = 1) -> Trajectory:
    """Step ``data`` for ``duration`` seconds (``control(data)`` before each step); record every ``every`` steps."""
    n = int(math.ceil(duration / model.opt.timestep))
    ts, qs = [float(data.time)], [data.qpos.copy()]
    for k in range(n):
        if control is not None:
            control(data)
        mujoco.mj_step(model, data)
        if (k + 1) % every == 0:
            ts.append(float(data.time))
            qs.append(data.qpos.copy())
    t = np.array(ts)
    return Trajectory(t - t[0], np.array(qs))


class Studio:
    """Renders trajectories of ``model`` through ``camera`` with motion blur, noise, flicker and jitter."""

    def __init__(self, model, camera: Camera, width: int, height: int, seed: int, fps: float):
        self.model, self.camera, self.W, self.H, self.seed, self.fps = model, camera, width, height, int(seed), fps
        self.cam_id = model.camera("studio").id
        self.cam_pos0 = model.cam_pos[self.cam_id].copy()

    def _render(self, renderer, data, q: np.ndarray, shift: np.ndarray) -> np.ndarray:
        data.qpos[:] = q
        self.model.cam_pos[self.cam_id] = self.cam_pos0 + shift
        mujoco.mj_forward(self.model, data)
        renderer.update_scene(data, camera=self.cam_id)
        return renderer.render()

    def frames(self, traj: Trajectory, times: np.ndarray) -> Iterator[np.ndarray]:
        """Frames at ``times``: each the mean of ``BLUR_SUBFRAMES`` renders over the exposure, then effects."""
        renderer = mujoco.Renderer(self.model, self.H, self.W)
        data = mujoco.MjData(self.model)
        dt = 1.0 / self.fps
        px_m = 1.0 / self.camera.scale_at(self.camera.pos - self.camera.z * 2.0)
        try:
            for i, t in enumerate(times):
                rng = np.random.default_rng([self.seed & 0xFFFFFFFF, i])
                shake = np.zeros(3) if i == 0 else (rng.normal(0, JITTER_PX, 2) @ np.stack([self.camera.x, self.camera.y])) * px_m
                offs = (np.linspace(-0.5, 0.5, BLUR_SUBFRAMES) * EXPOSURE * dt) if BLUR_SUBFRAMES > 1 else [0.0]
                acc = np.zeros((self.H, self.W, 3), np.float32)
                for o in offs:
                    acc += self._render(renderer, data, traj.at(self.model, t + o), shake)
                img = acc / len(offs)
                gain = 1.0 if i == 0 else 1.0 + FLICKER * float(rng.normal())
                img = img * gain + rng.normal(0, NOISE_SIGMA, img.shape).astype(np.float32)
                yield np.clip(img + 0.5, 0, 255).astype(np.uint8)
        finally:
            self.model.cam_pos[self.cam_id] = self.cam_pos0
            renderer.close()

    def segmentation(self, traj: Trajectory, t: float = 0.0) -> np.ndarray:
        """Geom id per pixel ``[H, W]`` at time ``t`` without jitter (-1: no geom)."""
        renderer = mujoco.Renderer(self.model, self.H, self.W)
        renderer.enable_segmentation_rendering()
        try:
            seg = self._render(renderer, mujoco.MjData(self.model), traj.at(self.model, t), np.zeros(3))
        finally:
            self.model.cam_pos[self.cam_id] = self.cam_pos0
            renderer.close()
        return np.where(seg[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM), seg[..., 0], -1)

    def first_frame(self, traj: Trajectory) -> tuple[np.ndarray, np.ndarray]:
        """Frame 0 (as ``frames`` yields it) and its segmentation."""
        return next(iter(self.frames(traj, np.array([0.0])))), self.segmentation(traj)


def measure_object(frame: np.ndarray, seg: np.ndarray, geom_ids) -> tuple[tuple[float, float, float, float],
                                                                          tuple[int, int, int]]:
    """First-frame box (visible pixels of the geoms, padded by 1 px) and median colour of its inner pixels."""
    import cv2

    mask = np.isin(seg, np.atleast_1d(geom_ids))
    if not mask.any():
        raise ValueError("object not visible in the first frame")
    ys, xs = np.nonzero(mask)
    box = (float(xs.min() - 1), float(ys.min() - 1), float(xs.max() + 1), float(ys.max() + 1))
    inner = cv2.erode(mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    pix = frame[inner if inner.sum() >= 4 else mask]
    return box, tuple(int(v) for v in np.median(pix, axis=0))
