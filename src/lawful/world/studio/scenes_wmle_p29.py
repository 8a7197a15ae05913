"""Studio scene of the WMLE electromagnetism task P29, drawn in 3-D by MuJoCo (P30, P33:
:mod:`.scenes_wmle_p30_p33`; P31, P32: :mod:`.scenes_wmle_p31_p32`).

- P29 ``eddy_braking``: two identical copper-clad wedges side by side, each with a stop at its foot; a bar
  magnet (one half painted, the other white) and a plain block of the same size start together from rest
  near the tops. Motion: **kinematic**, the task's closed form along each slope (the block speeds up
  uniformly; the magnet feels an eddy drag ``-v/τ`` and tends to a low terminal speed). Twin: no eddy
  braking, and the magnet speeds up ``anti_accel_factor`` times as fast as the block.
"""

from __future__ import annotations

import colorsys
import math

import numpy as np

from lawful.world.em import COPPER
from lawful.world.em import eddy_travel
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0


def _copper_hue() -> float:
    return colorsys.rgb_to_hsv(*(c / 255 for c in COPPER))[0]


# ----------------------------------------------------------------------------- P29


@scene("wmle", "eddy_braking")
def eddy_braking(index: int, seed: int) -> StyledCase:
    label = 29
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    th = math.radians(float(rng.uniform(24.0, 32.0)))
    span, gap = float(rng.uniform(0.46, 0.5)), float(rng.uniform(0.03, 0.06))
    w, h, dep = float(rng.uniform(0.065, 0.08)), float(rng.uniform(0.028, 0.035)), 0.05
    base = float(rng.uniform(0.04, 0.07))
    duration = 3.5
    finish = float(rng.uniform(0.45, 0.6))
    start = 0.5 * w + 0.012
    stop = span / math.cos(th) - start - 0.5 * w - 0.02
    accel = 2 * stop / (finish * duration) ** 2
    tau = float(rng.uniform(0.15, 0.3))
    anti_f = float(rng.uniform(1.15, 1.35))
    magnet_left, north_down = bool(rng.integers(2)), bool(rng.integers(2))
    cu = _copper_hue()  # object hues well clear of the copper's (a tracker must not take the plate for them)
    hues = tuple(x for x in C.PALETTE_HUES if min(abs(x - cu), 1 - abs(x - cu)) > 0.12)
    c_mag, c_blk = C.object_rgbs(rng, 2, avoid=C.scene_hues(st.look), hues=hues)
    lanes = {"magnet": 0 if magnet_left else 1, "block": 1 if magnet_left else 0}
    x0s = [-span - 0.5 * gap, 0.5 * gap]
    top = base + span * math.tan(th)
    u = np.array([math.cos(th), 0.0, -math.sin(th)])
    n = np.array([math.sin(th), 0.0, math.cos(th)])

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.55)))
    cmat = st.material(COPPER, 0.8, reflectance=0.15)
    stop_rgb = tuple(int(v) for v in rng.uniform(60, 95, 3))
    for i, x0 in enumerate(x0s):
        verts = [(x, y, z) for y in (-0.5 * dep - 0.01, 0.5 * dep + 0.01)
                 for x, z in ((x0, 0.0), (x0, top), (x0 + span, base), (x0 + span, 0.0))]
        K.mesh(st, f"wedge{i}", verts)
        st.static.append(f'<geom type="mesh" mesh="wedge{i}" material="{cmat}" contype="0" conaffinity="0"/>')
        foot = np.array([x0, 0.0, top]) + (start + stop + 0.5 * w) * u
        st.fixed(E.box(0.005, 0.5 * dep + 0.01, 0.65 * h), foot + 0.005 * u + 0.65 * h * n, stop_rgb, 0.3,
                 euler=(0, math.degrees(th), 0), **E.NO_CONTACT)
    white = tuple(int(v) for v in rng.uniform(222, 240, 3))
    for oid in ("magnet", "block"):
        x0 = x0s[lanes[oid]]
        p0 = np.array([x0, 0.0, top]) + start * u + (0.5 * h + 0.0005) * n
        b = st.body(oid, pos=tuple(p0), joint=E.Joint("slide", axis=(1, 0, 0), name=f"{oid}_j"),
                    euler=(0, math.degrees(th), 0))
        if oid == "block":
            b.geom(E.box(0.5 * w, 0.5 * dep, 0.5 * h), rgb=c_blk, obj="block", specular=0.3, **E.NO_CONTACT)
        else:
            sgn = 1.0 if north_down else -1.0  # the painted (north) half: down the slope or up it
            b.geom(E.box(0.25 * w, 0.5 * dep, 0.5 * h), rgb=c_mag, obj="magnet", pos=(sgn * 0.25 * w, 0, 0),
                   specular=0.5, **E.NO_CONTACT)
            b.geom(E.box(0.25 * w, 0.5 * dep, 0.5 * h), rgb=white, pos=(-sgn * 0.25 * w, 0, 0), specular=0.5,
                   **E.NO_CONTACT)
    if variant.distractor:
        st.distractor(E.box(0.5 * w, 0.5 * dep, 0.5 * h), pos=(x0s[1] + span + 0.12, 0.12, 0.5 * h), near=c_mag)
    hi_x = x0s[1] + span + (0.22 if variant.distractor else 0.05)
    cam = C.frame_camera(st, rng, variant, (x0s[0] - 0.05, -0.02), (hi_x, top + 0.1))
    world = st.build()
    qa = {oid: K.qadr(world, f"{oid}_j") for oid in ("magnet", "block")}

    def travel(oid: str, t, law: str):
        t = np.atleast_1d(t)
        if oid == "block":
            s = eddy_travel(t, accel, None)
        elif law == "anti":
            s = eddy_travel(t, accel * anti_f, None)
        else:
            s = eddy_travel(t, accel, tau)
        return np.minimum(s, stop)

    def qpos_of(law):
        def f(t):
            q = np.zeros(world.model.nq)
            for oid in qa:
                q[qa[oid]] = travel(oid, t, law)[0]
            return q
        return f

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    masks = world.masks(recs["true"])
    objects = [world.object_spec(oid, "block", first, masks) for oid in ("magnet", "block")]
    for o in objects:  # a pixel of margin, as the task's own cases give (the painted half meets the white one)
        o.box = (o.box[0] - 1, o.box[1] - 1, o.box[2] + 1, o.box[3] + 1)
        # the colour a user would pick: the lit face's (the median), not a mean with the shaded end face
        o.color = tuple(int(v) for v in np.median(first[masks[o.id]], axis=0))
    t = recs["true"].times[:, recs["true"].times.shape[1] // 2]
    tracks = {}
    for oid in ("magnet", "block"):
        p0 = np.array([x0s[lanes[oid]], 0.0, top]) + start * u + 0.5 * h * n
        off = (0.25 * w if north_down else -0.25 * w) if oid == "magnet" else 0.0
        tracks[oid] = [(round(float(a), 5), *(round(v, 3) for v in world.project(p0 + (s + off) * u)))
                       for a, s in zip(t, travel(oid, t, "true"))]
    ppm = world.px_per_m((0, 0, top))
    known = {"theta_deg": round(math.degrees(th), 4), "lanes": lanes, "north_down": north_down,
             "accel_px": round(accel * ppm, 4), "tau_s": round(tau, 4), "stop_px": round(stop * ppm, 3),
             "colors": {o.id: list(o.color) for o in objects}, "anti_accel_factor": round(anti_f, 4),
             "studio": {"variant": variant.name, "camera": cam, "motion": "kinematic: uniform slide vs eddy drag"},
             "anti_note": "twin: no eddy braking; the magnet speeds up anti_accel_factor times as fast as the block"}
    where = ("left", "right") if magnet_left else ("right", "left")
    case = E.studio_case(
        "wmle", "eddy_braking", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=objects,
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera looks at two identical wedges clad in thick copper plate, side by side, both sloping "
                f"down to the right at about {math.degrees(th):.0f} degrees with a stop at the foot. Near the top of "
                f"the {where[0]} slope rests a strong bar magnet, one half painted and the other white; at the same "
                f"height on the {where[1]} slope rests a plain non-magnetic block of the same size and weight. Both "
                "are let go together from rest and slide down the copper. Time runs at a steady rate."),
        assumptions=["magnet and block matched in size, mass and surface", "identical copper inclines",
                     "released together from rest at the same height", "fixed camera, uniform time"],
        criteria=["P29: M1/M2 of WMLE appendix B.7"],
        quantities={"accel_m_s2": accel, "terminal_speed_m_s": accel * tau})
    case.truth.tracks = tracks
    case.truth.events = {"release": 0.0}

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)
