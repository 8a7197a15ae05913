"""Studio scenes of the WMLE pendulum tasks P12–P15: two pendulums on hinges under one metal bar.

MuJoCo integrates each pendulum as a rigid body on a hinge (a thin string capsule and a sphere bob),
released together from rest at the task's angles; the law-correct clip is the simulated swing. The
twin changes exactly the period the task tests: one pendulum's bob feels gravity scaled by
``1 / anti_period_factor²`` (an applied vertical force on that body), so its swing keeps its
amplitude and its period is multiplied by ``anti_period_factor`` — the same twin as the task's own
``render(law="anti")``.

The swing plane faces the camera (yaw and pitch within 0.6°: a tilt would make equal lengths look unequal), so image-space ``known`` values
(pivots, lengths, radii) are the projected 3-D geometry. Variants by index: 640×360; 1920×1080 with
small pendulums; portrait 360×640; 832×480 with a similar-coloured distractor ball on a shelf.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.suites.wmle.p13_finite_amplitude import LARGE_DEG, R_STAR, SMALL_DEG
from lawful.world.studio import _kit_p08_p15 as kit
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

G = 9.81
FPS = 24.0
LABELS = {"pendulum_mass": 12, "finite_amplitude": 13, "pendulum_length": 14, "isochronism": 15}
STRING_R = 0.0016
BAR_HALF = 0.014  # half thickness of the square support bar (m)


def _pendulum_xml(p: dict, name: str) -> str:
    """One pendulum body hanging from ``(x, 0, z)``; hinge axis +y (towards the back wall)."""
    L, r = p["length_m"], p["radius_m"]
    rgba = " ".join(f"{c / 255:.3f}" for c in p["rgb"]) + " 1"
    return f"""
    <body name="{name}" pos="{p['x']:.4f} 0 {p['z']:.4f}">
      <joint name="{name}_hinge" type="hinge" axis="0 1 0" damping="0" armature="0" frictionloss="0"/>
      <geom name="{name}_string" type="capsule" fromto="0 0 0 0 0 {-(L - 0.8 * r):.4f}" size="{STRING_R}"
            rgba=".93 .92 .88 1" density="60" contype="0" conaffinity="0"/>
      <geom name="{name}_bob" type="sphere" pos="0 0 {-L:.4f}" size="{r:.4f}" rgba="{rgba}"
            material="glossy" density="7800" contype="0" conaffinity="0"/>
    </body>"""


def _scene_xml(pends: list[dict], bar_z: float, look: kit.Look, extras: str) -> str:
    xs = [p["x"] for p in pends]
    x0, x1 = min(xs) - 0.14, max(xs) + 0.14
    mid, half = 0.5 * (x0 + x1), 0.5 * (x1 - x0)
    z_bar = bar_z + BAR_HALF
    body = "".join(_pendulum_xml(p, f"p{i}") for i, p in enumerate(pends))
    world = f"""
    <geom name="bar" type="box" pos="{mid:.4f} 0 {z_bar:.4f}" size="{half:.4f} {BAR_HALF} {BAR_HALF}" material="metal"/>
    <geom name="post_l" type="cylinder" fromto="{x0:.4f} 0.0 0 {x0:.4f} 0.0 {z_bar + BAR_HALF:.4f}" size="0.012" material="metal"/>
    <geom name="post_r" type="cylinder" fromto="{x1:.4f} 0.0 0 {x1:.4f} 0.0 {z_bar + BAR_HALF:.4f}" size="0.012" material="metal"/>
    {extras}{body}"""
    return kit.world_xml(look, world, timestep=0.0005)


def _simulate(model, pends: list[dict], law: str, duration: float) -> kit.Trajectory:
    """Swing from rest at the released angles; in the twin, gravity on pendulum ``i`` is scaled by
    ``1 / anti_period_factor²`` (the period scales by the factor, the amplitude is kept)."""
    import mujoco

    data = mujoco.MjData(model)
    for i, p in enumerate(pends):
        # hinge about +y: a positive angle moves the bob towards -x (left on screen)
        data.qpos[model.jnt_qposadr[model.joint(f"p{i}_hinge").id]] = -p["side"] * math.radians(p["amplitude_deg"])
    mujoco.mj_forward(model, data)
    forces = []
    if law == "anti":
        for i, p in enumerate(pends):
            f = float(p["anti"])
            if abs(f - 1.0) > 1e-9:
                bid = model.body(f"p{i}").id
                forces.append((bid, -(1.0 / f**2 - 1.0) * float(model.body_subtreemass[bid]) * G))

    def control(d):
        for bid, fz in forces:
            d.xfrc_applied[bid, 2] = fz

    return kit.simulate(model, data, duration, control)


def _task_params(task: str, rng: np.random.Generator) -> dict:
    """Lengths (m), radii (m), amplitudes (deg) and the twin's period factors of the two pendulums."""
    side = int(rng.choice([-1, 1]))
    swap = bool(rng.integers(2))
    if task == "pendulum_mass":
        L = float(rng.uniform(0.26, 0.38))
        amp = float(rng.uniform(18.0, 25.0))
        f = float(rng.choice([rng.uniform(0.78, 0.86), rng.uniform(1.16, 1.28)]))
        ps = [dict(id="heavy", length_m=L, radius_m=float(rng.uniform(0.034, 0.04)), amplitude_deg=amp, anti=f),
              dict(id="light", length_m=L, radius_m=float(rng.uniform(0.019, 0.023)), amplitude_deg=amp, anti=1.0)]
        dur = 4.5
    elif task == "finite_amplitude":
        L = float(rng.uniform(0.22, 0.32))
        r = float(rng.uniform(0.022, 0.027))
        ratio = float(rng.uniform(0.96, 0.99))
        # the 30° pendulum's twin period is ratio × T_small = ratio / R* × T_large
        ps = [dict(id="small", length_m=L, radius_m=r, amplitude_deg=SMALL_DEG, anti=1.0),
              dict(id="large", length_m=L, radius_m=r, amplitude_deg=LARGE_DEG, anti=ratio / R_STAR)]
        dur = 4.5
    elif task == "pendulum_length":
        L = float(rng.uniform(0.4, 0.52))
        r = float(rng.uniform(0.022, 0.027))
        amp = float(rng.uniform(10.0, 14.0))
        p = float(rng.choice([rng.uniform(0.0, 0.2), rng.uniform(0.85, 1.1)]))
        ps = [dict(id="short", length_m=L / 2, radius_m=r, amplitude_deg=amp, anti=1.0),
              dict(id="long", length_m=L, radius_m=r, amplitude_deg=amp, anti=2**p / math.sqrt(2), exponent=p)]
        dur = 5.0
    elif task == "isochronism":
        L = float(rng.uniform(0.26, 0.38))
        r = float(rng.uniform(0.022, 0.027))
        small, large = float(rng.uniform(4.0, 6.0)), float(rng.uniform(8.0, 12.0))
        f = float(rng.choice([rng.uniform(1.15, 1.30), rng.uniform(0.75, 0.87)]))
        amps = (large, small) if swap else (small, large)
        ps = [dict(id=oid, length_m=L, radius_m=r, amplitude_deg=a, anti=f if a == large else 1.0)
              for oid, a in zip(("left", "right"), amps)]
        swap = False  # ids name the sides
        dur = 4.5
    else:
        raise KeyError(task)
    if swap:
        ps = ps[::-1]
    for p in ps:
        p["side"] = side
    return {"pends": ps, "duration": dur}


def build_pendulums(task: str, index: int, seed: int) -> StyledCase:
    """The ``index``-th studio scene of pendulum task ``task`` (parameters from ``seed``)."""
    import mujoco

    label = LABELS[task]
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, label, int(index), 0x57D10])
    prm = _task_params(task, rng)
    pends, duration = prm["pends"], prm["duration"]
    variant = kit.variant_of(index)
    look = kit.random_look(rng, variant)
    colors = kit.object_rgbs(rng, len(pends))
    spacing = float(rng.uniform(0.3, 0.38)) + max(p["length_m"] for p in pends) * 0.35
    L_max = max(p["length_m"] + p["radius_m"] for p in pends)
    bar_z = L_max + float(rng.uniform(0.12, 0.3))
    for i, p in enumerate(pends):
        p["x"] = (i - 0.5) * spacing
        p["z"] = bar_z
        p["rgb"] = colors[i]
    # what the camera must see: the bar, every bob's full swing, a strip of floor
    reach = max(p["length_m"] * math.sin(math.radians(p["amplitude_deg"])) + p["radius_m"] for p in pends)
    lo = np.array([pends[0]["x"] - reach - 0.05, bar_z - L_max - 0.04])
    hi = np.array([pends[-1]["x"] + reach + 0.05, bar_z + 0.05])
    extras = ""
    if variant.distractor:
        # a ball of nearly the first bob's colour resting on a shelf below the far pendulum's swing
        shade = kit.similar_rgb(rng, pends[0]["rgb"])
        dx = pends[-1]["x"] + reach + 0.06
        dz = max(0.05, bar_z - L_max - 0.12)
        rgba = " ".join(f"{c / 255:.3f}" for c in shade) + " 1"
        extras = (f'<geom name="shelf" type="box" pos="{dx:.4f} 0.05 {dz - 0.035:.4f}" size="0.07 0.06 0.008" '
                  'material="wood"/>'
                  f'<geom name="distractor" type="sphere" pos="{dx:.4f} 0.05 {dz:.4f}" size="0.027" rgba="{rgba}" '
                  'material="glossy"/>')
        hi[0] = max(hi[0], dx + 0.08)
    cam = kit.frame_camera(rng, variant, lo, hi, depth_y=0.0)
    model = mujoco.MjModel.from_xml_string(_scene_xml(pends, bar_z, look, extras + cam.xml()))
    W, H = variant.size
    n = int(round(duration * FPS))
    times = np.arange(n) * duration / n
    trajs = {"true": _simulate(model, pends, "true", duration + 0.1)}
    studio = kit.Studio(model, cam, W, H, seed=int(seed) * 7919 + index, fps=FPS)
    first, seg = studio.first_frame(trajs["true"])
    bob_ids = [model.geom(f"p{i}_bob").id for i in range(len(pends))]
    objects, records, truth = [], [], {}
    for i, p in enumerate(pends):
        pivot = cam.project(np.array([p["x"], 0.0, p["z"]]))
        box, rgb = kit.measure_object(first, seg, bob_ids[i])
        bob_rest = cam.project(np.array([p["x"], 0.0, p["z"] - p["length_m"]]))
        length_px = float(np.hypot(*(bob_rest - pivot)))
        radius_px = float(cam.scale_at(np.array([p["x"], 0.0, p["z"]])) * p["radius_m"])
        rec = {"id": p["id"], "pivot_x": round(float(pivot[0]), 3), "pivot_y": round(float(pivot[1]), 3),
               "length_px": round(length_px, 3), "length_m": round(p["length_m"], 5),
               "amplitude_deg": round(p["amplitude_deg"], 4), "side": int(p["side"]),
               "radius_px": round(radius_px, 3), "color": list(rgb),
               "anti_period_factor": round(float(p["anti"]), 6)}
        records.append(rec)
        objects.append(ObjectSpec(id=p["id"], shape="bob", color=rgb, box=box,
                                  known={"length_m": rec["length_m"], "length_px": rec["length_px"],
                                         "amplitude_deg": rec["amplitude_deg"]}))
        xyz = trajs["true"].body_pos(model, f"p{i}", times, offset=(0.0, 0.0, -p["length_m"]))
        uv = np.array([cam.project(q) for q in xyz])
        truth[p["id"]] = [(round(float(t), 5), round(float(u), 3), round(float(v), 3)) for t, (u, v) in zip(times, uv)]
    periods = {p["id"]: trajs["true"].hinge_period(model, f"p{i}_hinge") for i, p in enumerate(pends)}
    objects.sort(key=lambda o: [r["pivot_x"] for r in records if r["id"] == o.id][0])
    known = {"g": G, "support_y": round(float(cam.project(np.array([0.0, 0.0, bar_z]))[1]), 3),
             "pendulums": records, "studio": {"variant": variant.name, "camera": cam.describe()},
             "anti_note": "twin: one bob's gravity is scaled by 1/anti_period_factor^2 (its period x factor)"}
    quantities = {f"T_{k}_s": float(v) for k, v in periods.items() if v}
    if task == "finite_amplitude":
        known.update({"r_star": R_STAR, "anti_ratio": round(float(pends[[p["id"] for p in pends].index("large")]["anti"])
                                                             * R_STAR, 6)})
    if task == "pendulum_length":
        known["anti_exponent"] = round(float([p for p in pends if p["id"] == "long"][0]["exponent"]), 6)
    case = Case(id=f"studio-wmle-p{label:02d}-{index:02d}", suite="wmle", task=task, seed=int(seed),
                variant=f"studio-{variant.name}", width=W, height=H, fps=FPS, duration=duration,
                prompt=_prompt(task, pends), objects=objects,
                assumptions=["pendulums released together from rest", "negligible air resistance and pivot friction",
                             "fixed camera facing the swing plane, uniform time"],
                criteria=["see the task's M1/M2 (WMLE appendix B.3)"], known=known,
                truth=GroundTruth(tracks=truth, quantities=quantities))

    def render(law: str):
        if law not in trajs:
            trajs[law] = _simulate(model, pends, law, duration + 0.1)
        return studio.frames(trajs[law], times)

    return StyledCase(case, first, render)


def _prompt(task: str, pends: list[dict]) -> str:
    where = "left" if pends[0]["x"] < pends[1]["x"] else "right"
    other = "right" if where == "left" else "left"
    a, b = pends
    what = {
        "pendulum_mass": f"the {where} one carries a {'large, heavy' if a['id'] == 'heavy' else 'small, light'} bob "
                         f"and the {other} one a {'large, heavy' if b['id'] == 'heavy' else 'small, light'} bob of "
                         "the same material; their strings have the same length",
        "finite_amplitude": f"identical bobs on strings of the same length; the {where} bob starts at "
                            f"{a['amplitude_deg']:.0f} degrees and the {other} bob at {b['amplitude_deg']:.0f} degrees",
        "pendulum_length": f"identical bobs; the {where} string is {'half as long as' if a['id'] == 'short' else 'twice as long as'} "
                           f"the {other} one",
        "isochronism": f"identical bobs on strings of the same length; the left bob starts at about "
                       f"{a['amplitude_deg']:.0f} degrees and the right bob at about {b['amplitude_deg']:.0f} degrees",
    }[task]
    return ("A fixed camera looks at two pendulums hanging from one metal bar in a studio: " + what + ". Both are "
            "pulled aside to the same side and let go together from rest at the start; they swing freely for "
            "several full swings. The camera and the bar do not move and time runs at a steady rate.")


for _task in LABELS:
    scene("wmle", _task)(lambda index, seed, _t=_task: build_pendulums(_t, index, seed))
