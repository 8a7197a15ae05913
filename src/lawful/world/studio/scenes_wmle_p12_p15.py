"""Studio scenes of the WMLE pendulum tasks P12–P15: two pendulums on hinges under one metal bar.

MuJoCo integrates each pendulum as a rigid body on a hinge (a thin string capsule and a sphere bob),
released together from rest at the task's angles; the law-correct clip is the simulated swing. The
twin changes exactly the period the task tests: one pendulum's bob feels gravity scaled by
``1 / anti_period_factor²`` (an applied vertical force on that body), so its swing keeps its
amplitude and its period is multiplied by ``anti_period_factor`` — the same twin as the task's own
``render(law="anti")``.

The swing plane faces the camera (yaw and pitch within 0.6°: a tilted plane would make equal lengths
look unequal), so image-space ``known`` values (pivots, lengths, radii) are the projected 3-D geometry.
Variants by index (:data:`~lawful.world.studio._wmle_p08_p15.VARIANTS`): 640×360; 1920×1080 with small
pendulums; portrait 360×640; 832×480 with a look-alike ball on a shelf.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.world.scenes.pendulums import LARGE_DEG, R_STAR, SMALL_DEG
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

G = 9.81
FPS = 24.0
LABELS = {"pendulum_mass": 12, "finite_amplitude": 13, "pendulum_length": 14, "isochronism": 15}
STRING_R = 0.0016
BAR_HALF = 0.014  # half thickness of the square support bar (m)


def _stage(task: str, index: int, seed: int, rng: np.random.Generator, pends: list[dict]):
    """The stage: floor, backdrop, bar on two posts, two hinged pendulums, an optional look-alike ball."""
    label = LABELS[task]
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    colors = C.object_rgbs(rng, len(pends), avoid=C.scene_hues(st.look))
    spacing = float(rng.uniform(0.3, 0.38)) + max(p["length_m"] for p in pends) * 0.35
    L_max = max(p["length_m"] + p["radius_m"] for p in pends)
    bar_z = L_max + float(rng.uniform(0.12, 0.3))
    for i, p in enumerate(pends):
        p.update(x=(i - 0.5) * spacing, z=bar_z, rgb=colors[i])
    st.floor()
    st.backdrop(y=float(rng.uniform(0.2, 0.45)))
    x0, x1 = pends[0]["x"] - 0.14, pends[-1]["x"] + 0.14
    z_bar = bar_z + BAR_HALF
    metal = tuple(int(v) for v in rng.uniform(140, 175, 3))
    st.fixed(E.box(0.5 * (x1 - x0), BAR_HALF, BAR_HALF), pos=(0.5 * (x0 + x1), 0, z_bar), rgb=metal, specular=0.9)
    for x in (x0, x1):
        st.fixed(E.cylinder(0.012, 0.5 * (z_bar + BAR_HALF)), pos=(x, 0, 0.5 * (z_bar + BAR_HALF)), rgb=metal,
                 specular=0.9)
    for i, p in enumerate(pends):
        L, r = p["length_m"], p["radius_m"]
        b = st.body(f"p{i}", pos=(p["x"], 0, p["z"]), joint=E.Joint("hinge", axis=(0, 1, 0), name=f"p{i}_hinge"))
        b.geom(E.capsule(STRING_R, (0, 0, 0), (0, 0, -(L - 0.8 * r))), rgb=(236, 234, 224), specular=0.1,
               density=60, **E.NO_CONTACT)
        b.geom(E.sphere(r), rgb=p["rgb"], obj=p["id"], pos=(0, 0, -L), specular=0.6, density=7800, **E.NO_CONTACT)
    # what the camera must see: the bar, every bob's whole swing
    reach = max(p["length_m"] * math.sin(math.radians(p["amplitude_deg"])) + p["radius_m"] for p in pends)
    lo = [pends[0]["x"] - reach - 0.05, bar_z - L_max - 0.04]
    hi = [pends[-1]["x"] + reach + 0.05, bar_z + 0.05]
    if variant.distractor:
        # a ball of nearly the first bob's colour on a shelf beside the far pendulum's swing
        dx, dz = pends[-1]["x"] + reach + 0.07, max(0.06, bar_z - L_max - 0.02)
        st.fixed(E.box(0.06, 0.05, 0.006), pos=(dx, 0.04, dz - 0.033), rgb=(150, 118, 84), specular=0.1)
        st.distractor(E.sphere(0.027), pos=(dx, 0.04, dz), near=pends[0]["rgb"])
        hi[0] = dx + 0.08
    cam = C.frame_camera(st, rng, variant, lo, hi)
    return st, variant, cam, bar_z


def _simulate(world: E.World, pends: list[dict], law: str, duration: float) -> E.Recording:
    """Swing from rest at the released angles; in the twin, gravity on the pendulum with a period factor
    ``f != 1`` is scaled by ``1 / f²`` (its period scales by ``f``, its amplitude is kept)."""
    m = world.model

    def init(d):
        for i, p in enumerate(pends):
            # hinge about +y: a positive angle moves the bob towards -x (left on screen)
            d.qpos[m.jnt_qposadr[world.model.joint(f"p{i}_hinge").id]] = -p["side"] * math.radians(p["amplitude_deg"])

    hook = None
    if law == "anti":
        hook = E.gravity_scale(world, {f"p{i}": 1.0 / p["anti"] ** 2 for i, p in enumerate(pends)
                                       if abs(p["anti"] - 1.0) > 1e-9})
    return world.simulate(duration, FPS, hook, init)


def _bob_xyz(world: E.World, rec: E.Recording, i: int, p: dict) -> np.ndarray:
    """Bob centre ``[n, 3]`` (world) per frame at mid-exposure."""
    q = rec.qpos[:, rec.qpos.shape[1] // 2, world.model.jnt_qposadr[world.model.joint(f"p{i}_hinge").id]]
    L = p["length_m"]
    return np.stack([p["x"] - L * np.sin(q), np.zeros_like(q), p["z"] - L * np.cos(q)], axis=-1)


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
    label = LABELS[task]
    rng = C.scene_rng(seed, label, index)
    prm = _task_params(task, rng)
    pends, duration = prm["pends"], prm["duration"]
    st, variant, cam, bar_z = _stage(task, index, seed, rng, pends)
    world = st.build()
    recs = {"true": _simulate(world, pends, "true", duration)}
    first = next(iter(world.render(recs["true"])))
    masks = world.masks(recs["true"])
    t = recs["true"].times[:, recs["true"].times.shape[1] // 2]
    objects, records, truth, quantities = [], [], {}, {}
    for i, p in enumerate(pends):
        pivot = np.array(world.project((p["x"], 0.0, p["z"])))
        rest = np.array(world.project((p["x"], 0.0, p["z"] - p["length_m"])))
        length_px = float(np.hypot(*(rest - pivot)))
        obj = world.object_spec(p["id"], "bob", first, masks, length_m=round(p["length_m"], 5),
                                length_px=round(length_px, 3), amplitude_deg=round(p["amplitude_deg"], 4))
        objects.append(obj)
        records.append({"id": p["id"], "pivot_x": round(float(pivot[0]), 3), "pivot_y": round(float(pivot[1]), 3),
                        "length_px": round(length_px, 3), "length_m": round(p["length_m"], 5),
                        "amplitude_deg": round(p["amplitude_deg"], 4), "side": int(p["side"]),
                        "radius_px": round(world.px_per_m((p["x"], 0.0, p["z"] - p["length_m"])) * p["radius_m"], 3),
                        "color": list(obj.color), "anti_period_factor": round(float(p["anti"]), 6)})
        xyz = _bob_xyz(world, recs["true"], i, p)
        truth[p["id"]] = [(round(float(a), 5), *(round(float(v), 3) for v in world.project(q))) for a, q in zip(t, xyz)]
        T = C.frame_period(t, xyz[:, 0] - p["x"])
        if T:
            quantities[f"T_{p['id']}_s"] = T
    objects.sort(key=lambda o: next(r["pivot_x"] for r in records if r["id"] == o.id))
    known = {"g": G, "support_y": round(float(world.project((0.0, 0.0, bar_z))[1]), 3), "pendulums": records,
             "studio": {"variant": variant.name, "camera": cam},
             "anti_note": "twin: one bob's gravity is scaled by 1/anti_period_factor^2 (its period x factor)"}
    if task == "finite_amplitude":
        large = next(p for p in pends if p["id"] == "large")
        known.update({"r_star": R_STAR, "anti_ratio": round(float(large["anti"]) * R_STAR, 6)})
    if task == "pendulum_length":
        known["anti_exponent"] = round(float(next(p for p in pends if p["id"] == "long")["exponent"]), 6)
    case = E.studio_case("wmle", task, index, seed, prompt=_prompt(task, pends), duration=duration, fps=FPS,
                         width=variant.size[0], height=variant.size[1], objects=objects, known=known,
                         assumptions=["pendulums released together from rest",
                                      "negligible air resistance and pivot friction",
                                      "fixed camera facing the swing plane, uniform time"],
                         criteria=[f"P{label}: M1/M2 of WMLE appendix B.3"], variant=f"studio-{variant.name}",
                         quantities=quantities)
    case.truth.tracks = truth

    def render(law: str):
        if law not in recs:
            recs[law] = _simulate(world, pends, law, duration)
        return world.render(recs[law])

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
        "pendulum_length": f"identical bobs; the {where} string is "
                           f"{'half as long as' if a['id'] == 'short' else 'twice as long as'} the {other} one",
        "isochronism": f"identical bobs on strings of the same length; the left bob starts at about "
                       f"{a['amplitude_deg']:.0f} degrees and the right bob at about {b['amplitude_deg']:.0f} degrees",
    }[task]
    return ("A fixed camera looks at two pendulums hanging from one metal bar in a studio: " + what + ". Both are "
            "pulled aside to the same side and let go together from rest at the start; they swing freely for "
            "several full swings. The camera and the bar do not move and time runs at a steady rate.")


for _task in LABELS:
    scene("wmle", _task)(lambda index, seed, _t=_task: build_pendulums(_t, index, seed))
