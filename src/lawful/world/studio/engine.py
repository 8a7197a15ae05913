"""A small scene builder over MJCF and ``mujoco.Renderer`` shared by every studio scene.

Build, simulate, render, measure the first frame::

    st = Stage(seed, width=640, height=360)          # random look per seed: backdrop, floor, lights, camera noise
    st.camera(pos=(0, -3, 1), lookat=(0, 0, 1), fovy=35)      # world: x right, y into the scene, z up (metres)
    st.floor(); st.backdrop(y=1.5)                    # textured floor plane and wall (kind from the look)
    b = st.body("ball_1", pos=(0, 0, 1), joint="free")        # joint: None | "free" | Joint(...)
    b.geom(sphere(0.05), rgb=(200, 40, 40), obj="ball_1", solref=restitution_solref(0.7))
    st.distractor(sphere(0.05), pos=(0.6, 0.3, 0.05), near=(200, 40, 40))   # static look-alike
    arm = st.arm("arm", hand=(0.06, 0, 1), away=(1, 0, 0.4))   # mocap occluder; withdraws from t = 0
    w = st.build()                                    # -> World (compiled MjModel, camera maths)
    rec = w.simulate(duration=3, fps=24, hook=None)   # qpos and body positions at sub-frame times
    frames = w.render(rec)                            # iterator of uint8 RGB frames (blur, noise, flicker, jitter)
    w.project((x, y, z)) -> (px, py)                  # pixel coordinates, pixel centres at integers
    masks = w.masks()                                 # first-frame visible mask per ``obj`` (segmentation)
    w.object_spec("ball_1", "sphere", frame0, masks)  # -> ObjectSpec (box and mean colour from the render)
    case = studio_case(...)                           # -> Case

Geometry helpers return MJCF geom attributes: :func:`sphere`, :func:`box`, :func:`cylinder`,
:func:`capsule`. Anti-physics hooks: ``hook(world, data)`` runs before every ``mj_step`` (e.g.
:func:`gravity_scale` adds ``(s - 1) m g`` to a body, a callback can rescale a velocity or set a
position kinematically); restitution is set per geom by ``solref`` (:func:`restitution_solref`).
Helpers live in :mod:`~lawful.world.studio.look` (:class:`Look`, :func:`random_look`,
:func:`procedural` textures) and :mod:`~lawful.world.studio.dynamics` (hooks, :func:`restitution_solref`);
both are re-exported here. Integration: RK4, 1 ms steps (exact for free flight). Rendering: EGL, else OSMesa (``MUJOCO_GL``);
one renderer per world, reused for every clip of it (``World.close()``; closed at exit otherwise).
"""

from __future__ import annotations

import atexit
import math
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass


from lawful.world.studio._gl import pick_gl

pick_gl()

import cv2  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from lawful.case import Case, ObjectSpec  # noqa: E402
from lawful.world.studio.dynamics import (  # noqa: E402,F401  (re-exported: scenes use E.<name>)
    CONTACT_K,
    TIMESTEP,
    Hook,
    chain,
    gravity_scale,
    restitution_solref,
)
from lawful.world.studio.look import Look, _png, procedural, random_look  # noqa: E402,F401
from lawful.world.studio.mjcf import (  # noqa: E402,F401  (re-exported: scenes use E.<name>)
    NO_CONTACT, Body, Joint, _attrs, _vec, box, capsule, cylinder, sphere,
)

SIZES = {"default": (640, 360), "hd": (1920, 1080), "portrait": (360, 640)}
G = 9.81


# ----------------------------------------------------------------------------- stage


class Stage:
    """MJCF builder: look, camera, floor, backdrop, bodies, distractors, an arm occluder."""

    def __init__(self, seed: int, width: int = 640, height: int = 360, look: Look | None = None,
                 timestep: float = TIMESTEP):
        self.seed = int(seed)
        self.rng = np.random.default_rng([self.seed, 0x57D10])
        self.width, self.height = int(width), int(height)
        self.look = look or random_look(self.rng)
        self.timestep = timestep
        self.assets: dict[str, bytes] = {}
        self.asset_xml: list[str] = []
        self.bodies: list[Body] = []
        self.static: list[str] = []
        self.extra: list[str] = []
        self.objects: dict[str, list[str]] = {}
        self.arms: dict[str, tuple] = {}
        self._mats: dict[tuple, str] = {}
        self.cam = None

    # --- appearance
    def material(self, rgb, specular: float | None = None, texture: str | None = None, texrepeat=(1, 1),
                 reflectance: float = 0.0) -> str:
        rgba = tuple(round(c / 255.0, 4) for c in rgb) + (1.0,)
        spec = 0.5 if specular is None else specular
        key = (rgba, spec, texture, tuple(texrepeat), reflectance)
        if key not in self._mats:
            name = f"mat{len(self._mats)}"
            a = {"name": name, "rgba": _vec(rgba), "specular": spec, "shininess": 0.6 if spec > 0.2 else 0.1,
                 "reflectance": reflectance}
            if texture:
                a.update(texture=texture, texrepeat=_vec(texrepeat), texuniform="true")
            self.asset_xml.append(f"<material {_attrs(a)}/>")
            self._mats[key] = name
        return self._mats[key]

    def texture(self, kind: str, c1, c2, name: str) -> str:
        """A 2-D texture: MuJoCo builtin (checker, gradient, flat) or procedural (PNG asset)."""
        if kind in ("checker", "gradient", "flat"):
            self.asset_xml.append(f'<texture name="{name}" type="2d" builtin="{kind}" rgb1="{_vec(c1)}" '
                                  f'rgb2="{_vec(c2)}" width="256" height="256" mark="none"/>')
        else:
            self.assets[f"{name}.png"] = _png(procedural(kind, c1, c2, self.rng))
            self.asset_xml.append(f'<texture name="{name}" type="2d" file="{name}.png"/>')
        return name

    def camera(self, pos, lookat, fovy: float = 40.0, roll: float = 0.0) -> None:
        """Perspective camera at ``pos`` looking at ``lookat`` (degrees of vertical field of view)."""
        pos, look = np.asarray(pos, float), np.asarray(lookat, float)
        fwd = (look - pos) / np.linalg.norm(look - pos)
        right = np.cross(fwd, [0, 0, 1.0])
        right /= np.linalg.norm(right)
        up = np.cross(right, fwd)
        c, s = math.cos(math.radians(roll)), math.sin(math.radians(roll))
        right, up = c * right + s * up, -s * right + c * up
        self.cam = (pos, right, up, float(fovy))

    def floor(self, z: float = 0.0, **attrs) -> None:
        lk = self.look
        kind = "flat" if lk.floor == "flat" else lk.floor
        tex = self.texture(kind, lk.floor_rgb[0], lk.floor_rgb[1], "floortex")
        rep = (4, 4) if kind == "checker" else (1, 1)
        mat = self.material((255, 255, 255), 0.15, tex, rep, reflectance=float(self.rng.uniform(0, 0.08)))
        a = {"name": "floor", "type": "plane", "size": "20 20 0.1", "pos": f"0 0 {z:.6g}", "material": mat}
        a.update(attrs)
        self.static.append(f"<geom {_attrs(a)}/>")

    def backdrop(self, y: float, width: float = 20.0, height: float = 10.0, kind: str | None = None) -> None:
        """A vertical wall facing the camera at depth ``y`` (world)."""
        lk = self.look
        kind = kind or lk.backdrop
        tex = self.texture(kind, lk.wall[0], lk.wall[1], "walltex")
        rep = (2, 2) if kind in ("checker",) else (1, 1) if kind in ("gradient", "flat") else (3, 3)
        mat = self.material((255, 255, 255), 0.05, tex, rep)
        self.static.append(f'<geom name="wall" type="box" size="{width / 2:.6g} 0.01 {height / 2:.6g}" '
                           f'pos="0 {y:.6g} {height / 2 - 0.01:.6g}" material="{mat}" contype="0" conaffinity="0"/>')

    # --- bodies
    def body(self, name: str, pos, joint=None, euler=None) -> Body:
        b = Body(self, name, pos, joint, False, euler)
        self.bodies.append(b)
        return b

    def fixed(self, shape: dict, pos, rgb, specular: float | None = None, euler=None, obj: str | None = None,
              name: str | None = None, **attrs) -> str:
        """A static geom (table, ramp, bar); returns its name."""
        name = name or f"static{len(self.static)}"
        a = {"name": name, **shape, "pos": _vec(pos), "material": self.material(rgb, specular),
             "euler": _vec(euler) if euler else None}
        a.update(attrs)
        self.static.append(f"<geom {_attrs(a)}/>")
        if obj is not None:
            self.objects.setdefault(obj, []).append(name)
        return name

    def distractor(self, shape: dict, pos, near, spread: float = 18.0) -> str:
        """A static look-alike: ``near`` RGB shifted by up to ``spread`` grey levels per channel."""
        rgb = np.clip(np.asarray(near, float) + self.rng.uniform(-spread, spread, 3), 0, 255)
        return self.fixed(shape, pos, tuple(rgb), 0.5, **NO_CONTACT)

    def arm(self, name: str, hand, away, rgb=None, speed: float = 1.2, accel: float = 6.0,
            reach: Sequence[float] = (1.0, 0.0, 0.3), radius: float = 0.035) -> Body:
        """A mocap arm whose hand is at ``hand`` until ``t = 0`` and then withdraws along ``away``.

        The forearm runs from the hand along ``reach`` (a capsule); the hand is a squashed sphere.
        Motion: constant acceleration ``accel`` up to ``speed`` (m/s), no contacts.
        """
        rgb = rgb or tuple(self.rng.uniform([170, 120, 90], [230, 180, 150]))
        b = Body(self, name, hand, None, True)
        d = np.asarray(reach, float) / np.linalg.norm(reach)
        b.geom(capsule(radius, d * radius * 1.2, d * 1.2), rgb, specular=0.2)
        b.geom({"type": "ellipsoid", "size": f"{radius * 1.5:.4g} {radius * 1.1:.4g} {radius * 1.5:.4g}"}, rgb,
               pos=d * radius * 0.6, specular=0.2)
        self.bodies.append(b)
        u = np.asarray(away, float) / np.linalg.norm(away)
        self.arms[name] = (np.asarray(hand, float), u, speed, accel)
        return b

    def xml(self) -> str:
        lk = self.look
        w, h = self.width, self.height
        ld = _vec(lk.light_dir)
        lp = _vec(-3 * np.asarray(lk.light_dir) + np.array([0, 0, 0.5]))
        a = lk.ambient
        return (
            f'<mujoco model="studio"><option timestep="{self.timestep}" integrator="RK4"/>'
            f'<visual><global offwidth="{max(w, 640)}" offheight="{max(h, 480)}"/>'
            f'<quality shadowsize="1024" offsamples="0"/>'
            f'<headlight ambient="{a:.3g} {a:.3g} {a:.3g}" diffuse="0.25 0.25 0.25" specular="0.1 0.1 0.1"/>'
            f'<map znear="0.01" zfar="60"/></visual>'
            f'<asset>{"".join(self.asset_xml)}</asset><worldbody>'
            f'<light name="key" pos="{lp}" dir="{ld}" directional="true" castshadow="true" '
            f'diffuse="0.65 0.63 0.6" specular="0.4 0.4 0.4"/>'
            f'<light name="fill" pos="0 -4 4" dir="0 1 -1" castshadow="false" diffuse="0.2 0.2 0.22"/>'
            + "".join(self.static) + "".join(b.xml() for b in self.bodies)
            + f'</worldbody>{"".join(self.extra)}</mujoco>'
        )

    def build(self) -> "World":
        if self.cam is None:
            raise ValueError("Stage.camera() was not called")
        model = mujoco.MjModel.from_xml_string(self.xml(), self.assets)
        return World(self, model)


# ----------------------------------------------------------------------------- world


@dataclass
class Recording:
    """Simulated states: ``times[n, S]`` (s), ``qpos[n, S, nq]``, ``mocap[n, S, nmocap, 3]``, ``xpos[n, S, nbody, 3]``."""

    times: np.ndarray
    qpos: np.ndarray
    mocap: np.ndarray
    xpos: np.ndarray

    def body_xyz(self, world: "World", body: str, sub: int | None = None) -> np.ndarray:
        """World position of ``body`` per frame (mid-exposure sub-frame unless ``sub`` given): ``[n, 3]``."""
        bid = mujoco.mj_name2id(world.model, mujoco.mjtObj.mjOBJ_BODY, body)
        s = self.times.shape[1] // 2 if sub is None else sub
        return self.xpos[:, s, bid]


_OPEN: "weakref.WeakSet[World]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Free GL contexts before the interpreter tears down (OSMesa raises otherwise)."""
    for w in list(_OPEN):
        w.close()


class World:
    """A compiled stage: simulation, rendering with camera effects, projection and first-frame masks."""

    def __init__(self, stage: Stage, model: mujoco.MjModel):
        self.stage, self.model = stage, model
        self.width, self.height, self.look = stage.width, stage.height, stage.look
        pos, right, up, fovy = stage.cam
        self.cam_pos, self.cam_right, self.cam_up, self.fovy = pos, right, up, fovy
        self.focal = (self.height / 2) / math.tan(math.radians(fovy) / 2)
        self._mv = mujoco.MjvCamera()
        self._mv.type = mujoco.mjtCamera.mjCAMERA_FREE
        fwd = np.cross(up, right)
        self._mv.lookat[:] = pos + fwd
        self._mv.distance = 1.0
        self._mv.azimuth = math.degrees(math.atan2(fwd[1], fwd[0]))
        self._mv.elevation = math.degrees(math.asin(np.clip(fwd[2], -1, 1)))
        self.model.vis.global_.fovy = fovy
        self._renderer: mujoco.Renderer | None = None
        if abs(np.dot(up, [0, 0, 1]) - math.sqrt(max(0.0, 1 - fwd[2] ** 2))) > 1e-6:
            raise ValueError("camera roll is not supported by MuJoCo's free camera; use roll=0")

    # --- geometry
    def id(self, kind: str, name: str) -> int:
        obj = {"body": mujoco.mjtObj.mjOBJ_BODY, "geom": mujoco.mjtObj.mjOBJ_GEOM}[kind]
        i = mujoco.mj_name2id(self.model, obj, name)
        if i < 0:
            raise KeyError(f"no {kind} named {name}")
        return i

    def project(self, xyz) -> tuple[float, float]:
        """Pixel ``(x, y)`` of world point ``xyz`` (pixel centres at integer coordinates, y down)."""
        p = np.asarray(xyz, float) - self.cam_pos
        fwd = np.cross(self.cam_up, self.cam_right)
        z = float(p @ fwd)
        return (self.width / 2 - 0.5 + self.focal * float(p @ self.cam_right) / z,
                self.height / 2 - 0.5 - self.focal * float(p @ self.cam_up) / z)

    def px_per_m(self, xyz) -> float:
        """Image scale (px per metre) of a small length parallel to the image plane at ``xyz``."""
        fwd = np.cross(self.cam_up, self.cam_right)
        return self.focal / float((np.asarray(xyz, float) - self.cam_pos) @ fwd)

    # --- simulation
    def simulate(self, duration: float, fps: float, hook: Hook | None = None,
                 init: Callable[[mujoco.MjData], None] | None = None) -> Recording:
        """Integrate from the initial state; record states at each frame's sub-frame times.

        Frame ``i`` (``n = round(duration * fps)`` frames, time ``i * duration / n``) averages
        ``look.subframes`` states spread over ``look.shutter`` of a frame interval, centred on its time
        (clamped at 0: nothing moves before release).
        """
        m, d = self.model, mujoco.MjData(self.model)
        if init:
            init(d)
        mujoco.mj_forward(m, d)
        n = max(1, int(round(duration * fps)))
        dt = duration / n
        S = self.look.subframes
        offs = (np.arange(S) - (S - 1) / 2) / S * self.look.shutter * dt
        want = np.clip(np.arange(n)[:, None] * dt + offs[None, :], 0.0, None)
        order = np.argsort(want, axis=None, kind="stable")
        flat = want.reshape(-1)
        times = np.zeros(n * S)
        qpos = np.zeros((n * S, m.nq))
        mocap = np.zeros((n * S, m.nmocap, 3))
        xpos = np.zeros((n * S, m.nbody, 3))
        h = m.opt.timestep
        for k in order:
            while d.time < flat[k] - h / 2:
                self._drive(d)
                if hook:
                    hook(self, d)
                mujoco.mj_step(m, d)
            self._drive(d)
            mujoco.mj_kinematics(m, d)
            times[k], qpos[k], mocap[k], xpos[k] = d.time, d.qpos, d.mocap_pos, d.xpos
        return Recording(times.reshape(n, S), qpos.reshape(n, S, -1), mocap.reshape(n, S, m.nmocap, 3),
                         xpos.reshape(n, S, m.nbody, 3))

    def _drive(self, d: mujoco.MjData) -> None:
        """Mocap arms: at the hand position until t = 0, then accelerate away along their direction."""
        for name, (hand, u, vmax, acc) in self.stage.arms.items():
            t = d.time
            t1 = vmax / acc
            s = 0.5 * acc * t * t if t < t1 else 0.5 * acc * t1 * t1 + vmax * (t - t1)
            d.mocap_pos[self.model.body_mocapid[self.id("body", name)]] = hand + s * u

    # --- rendering
    def renderer(self) -> mujoco.Renderer:
        """This world's one renderer (a GL context costs about a second); :meth:`close` frees it."""
        if self._renderer is None:
            self._renderer = mujoco.Renderer(self.model, self.height, self.width)
            _OPEN.add(self)
        return self._renderer

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        _OPEN.discard(self)

    def _set(self, d: mujoco.MjData, rec: Recording, i: int, s: int) -> None:
        d.qpos[:] = rec.qpos[i, s]
        d.mocap_pos[:] = rec.mocap[i, s]
        mujoco.mj_forward(self.model, d)

    def render(self, rec: Recording, effects: bool = True) -> Iterator[np.ndarray]:
        """Frames of ``rec``: sub-frame average (motion blur), then flicker, jitter and sensor noise.

        Effects are seeded from the stage seed, so two recordings with the same first state give the
        same frame 0 (the law-correct clip and its anti-physics twin share their first frame).
        """
        rng = np.random.default_rng([self.stage.seed, 0xF11])
        lk = self.look
        d = mujoco.MjData(self.model)
        r = self.renderer()
        shift = np.zeros(2)
        for i in range(rec.qpos.shape[0]):
            acc = np.zeros((self.height, self.width, 3), np.float32)
            S = rec.qpos.shape[1]
            for s in range(S):
                self._set(d, rec, i, s)
                r.update_scene(d, self._mv)
                acc += r.render()
            img = acc / S
            if effects:
                img = self._effects(img, rng, shift, i)
            yield np.clip(np.rint(img), 0, 255).astype(np.uint8)

    def _effects(self, img: np.ndarray, rng: np.random.Generator, shift: np.ndarray, i: int) -> np.ndarray:
        lk = self.look
        gain = 1.0 + lk.flicker * float(rng.uniform(-1, 1))
        step = rng.normal(0, 0.35 * lk.jitter_px, 2)
        if i > 0:
            shift[:] = np.clip(0.7 * shift + step, -lk.jitter_px, lk.jitter_px)
            mat = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
            img = cv2.warpAffine(img, mat, (self.width, self.height), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
        noise = rng.normal(0, lk.noise_sigma, img.shape).astype(np.float32)
        return img * gain + noise

    def masks(self, rec: Recording | None = None) -> dict[str, np.ndarray]:
        """Visible first-frame mask per watched object (``obj`` tags), from segmentation rendering."""
        d = mujoco.MjData(self.model)
        if rec is not None:
            self._set(d, rec, 0, 0)
        else:
            self._drive(d)
            mujoco.mj_forward(self.model, d)
        r = self.renderer()
        try:
            r.enable_segmentation_rendering()
            r.update_scene(d, self._mv)
            seg = r.render()
        finally:
            r.disable_segmentation_rendering()
        gid = np.where(seg[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM), seg[..., 0], -1)
        return {o: np.isin(gid, [self.id("geom", g) for g in names]) for o, names in self.stage.objects.items()}

    def object_spec(self, oid: str, shape: str, frame: np.ndarray, masks: dict[str, np.ndarray],
                    **known: float) -> ObjectSpec:
        """ObjectSpec with the visible mask's box (pixel edges) and its mean colour in ``frame``."""
        mk = masks[oid]
        if not mk.any():
            raise ValueError(f"object {oid} is not visible in the first frame")
        ys, xs = np.nonzero(mk)
        b = (float(xs.min()) - 0.5, float(ys.min()) - 0.5, float(xs.max()) + 0.5, float(ys.max()) + 0.5)
        inner = cv2.erode(mk.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        col = frame[inner if inner.sum() >= 4 else mk].mean(axis=0)
        return ObjectSpec(id=oid, shape=shape, color=tuple(int(round(c)) for c in col), box=b,
                          known={k: float(v) for k, v in known.items()})


# ----------------------------------------------------------------------------- case


def studio_case(suite: str, task: str, index: int, seed: int, *, prompt: str, duration: float, fps: float,
                width: int, height: int, objects: list[ObjectSpec], known: dict, assumptions=(),
                criteria=(), variant: str | None = None, quantities: dict | None = None) -> Case:
    """A Case as a user would write it for a studio scene (id ``studio-<task>-<index>-<seed>``)."""
    from lawful.case import GroundTruth

    truth = GroundTruth(quantities={k: float(v) for k, v in quantities.items()}) if quantities else None
    return Case(id=f"studio-{task.replace('_', '-')}-{index:03d}-{int(seed) & 0xFFFFFFFF}", suite=suite, task=task,
                prompt=prompt, width=width, height=height, fps=fps, duration=duration, objects=objects,
                assumptions=list(assumptions), known=known, criteria=list(criteria), seed=int(seed),
                variant=variant, truth=truth)


def gl_available() -> bool:
    """Whether an offscreen GL context can be made (EGL or OSMesa, per ``MUJOCO_GL``)."""
    try:
        m = mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom type='sphere' size='1'/></worldbody></mujoco>")
        r = mujoco.Renderer(m, 8, 8)
        r.close()
        return True
    except Exception:
        return False
