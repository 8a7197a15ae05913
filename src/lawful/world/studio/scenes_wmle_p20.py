"""Studio scene of WMLE P20 (refraction and total internal reflection of four beams), drawn in 3-D by MuJoCo.

- P20 ``total_internal_reflection``: a long glass tank of faintly tinted water in front of a frosted panel;
  four submerged laser pointers (red, green, violet, amber) each aim up at their own point of the surface
  and turn slowly about it, so each beam's incidence in the water sweeps across the critical angle (48.6°).
  Below it the beam leaves into the air, bent away from the normal (Snell, n = 1.333); beyond it the beam
  is totally reflected back down. The beams lie in the tank's mid-plane, which faces the camera; the camera
  is level with the surface (seen edge-on), so the surface's row is the entry points'. Motion:
  **kinematic**, the law's closed form: each beam is a self-lit rod on a hinge about its entry point (the
  refracted rod on a slide that parks it under the floor while the beam is totally reflected). Twin: each
  beam bends and reflects as for its own index ``anti_n[k]`` (0.88–1.24 × 1.333).

The weak partial reflection that accompanies a refraction is not drawn (the task reads a reflection only
where no refraction is read).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.world.scenes import beams
from lawful.world import optics
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.studio.scenes_wmle_p16_p19 import _beam_radius, _panel
from lawful.world.styles import StyledCase

FPS = 24.0
N_WATER = 1.333
COLORS = {"red": (245, 45, 35), "green": (40, 225, 70), "violet": (150, 60, 250), "amber": (250, 190, 20)}
R_LASER = 0.22            # m from a laser's aperture to its entry point
SPACING = 0.2             # m between entry points
OUT_M = 0.3               # length of a refracted beam drawn in the air
WATER_TINT = (150, 185, 215)
MASS = '<inertial pos="0 0 0" mass="0.001" diaginertia="1e-7 1e-7 1e-7"/>'  # a slide's carrier (nothing drawn)
PARK = -5.0               # m: where a refracted rod waits while its beam is totally reflected


def _index(law: str, anti_n: list[float], j: int) -> float:
    return N_WATER if law == "true" else anti_n[j]


def _angles(th: float, n: float) -> tuple[float | None, float]:
    """The refracted beam's angle from the normal (None: total reflection) and the reflected one's."""
    s = n * math.sin(th)
    return (math.asin(s) if s < 1.0 else None), th


@scene("wmle", "total_internal_reflection")
def total_internal_reflection(index: int, seed: int) -> StyledCase:
    label = 20
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    xL, xR = -0.6, 0.6
    d_t = float(rng.uniform(0.12, 0.16))
    z_b = float(rng.uniform(0.0, 0.03)) + 0.012
    depth = float(rng.uniform(0.33, 0.36))
    z_s = z_b + depth
    z_top = z_s + float(rng.uniform(0.14, 0.18))
    xs = -0.25 + SPACING * np.arange(4) + rng.uniform(-0.01, 0.01, 4)
    names = [list(COLORS)[int(k)] for k in rng.permutation(4)]
    sweeps = []
    for _ in range(4):
        lo, hi = float(rng.uniform(18.0, 30.0)), float(rng.uniform(56.0, 64.0))
        sweeps.append((lo, hi) if rng.integers(2) else (hi, lo))
    anti_n = (N_WATER * np.array([0.88, 1.0, 1.12, 1.24])[rng.permutation(4)]).tolist()
    duration = 3.0

    st.floor()
    st.backdrop(y=float(rng.uniform(0.35, 0.6)))
    _panel(st, rng, xL - 0.04, xR + 0.04, z_b - 0.012, z_top + 0.12, y=0.5 * d_t + 0.03)
    gmat = K.glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.08, 0.14)))
    st.static.append(f'<geom name="tank" type="box" size="{0.5 * (xR - xL) + 0.005:.5g} {0.5 * d_t + 0.005:.5g} '
                     f'{0.5 * (z_top - z_b + 0.012):.5g}" pos="0 0 {0.5 * (z_top + z_b - 0.012):.5g}" '
                     f'material="{gmat}" contype="0" conaffinity="0"/>')
    tint = tuple(int(v) for v in np.clip(np.asarray(WATER_TINT) + rng.uniform(-12, 12, 3), 0, 255))
    wmat = K.glass(st, tint, float(rng.uniform(0.14, 0.2)), specular=0.4)
    st.static.append(f'<geom name="water" type="box" size="{0.5 * (xR - xL):.5g} {0.5 * d_t:.5g} {0.5 * depth:.5g}" '
                     f'pos="0 0 {0.5 * (z_b + z_s):.5g}" material="{wmat}" contype="0" conaffinity="0"/>')
    half = max(z_s - z_b + 0.04, z_top + 0.1 - z_s)
    cam = C.frame_camera(st, rng, variant, (xL - 0.05, z_s - half), (xR + 0.05, z_s + half), max_tilt_deg=0.0)
    pos, right, upv, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z_s]), right, upv, fov)  # level with the surface
    cam["pos"][2] = round(z_s, 4)
    r_b = _beam_radius(cam, H, px=2.5)  # 5-px beams: a thinner one loses its colour to compression
    backs = []
    for j, x in enumerate(xs):
        rgb = COLORS[names[j]]
        c = (float(x), 0.0, z_s)
        inc = st.body(f"in{j}", pos=c, joint=E.Joint("hinge", axis=(0, 1, 0), name=f"in{j}_j"))
        K.beam(st, (0, 0, -R_LASER), (0, 0, 0), rgb, r_b, body=inc)
        inc.geom(E.cylinder(0.011, 0.045), (52, 54, 60), pos=(0, 0, -R_LASER - 0.049), specular=0.6, **E.NO_CONTACT)
        park = st.body(f"park{j}", pos=c, joint=E.Joint("slide", axis=(0, 0, 1), name=f"park{j}_j"))
        park.parts.append(MASS)
        out = park.body(f"out{j}", pos=(0, 0, 0), joint=E.Joint("hinge", axis=(0, 1, 0), name=f"out{j}_j"))
        K.beam(st, (0, 0, 0), (0, 0, OUT_M), rgb, r_b, body=out)
        th_max = math.radians(max(sweeps[j]))  # the reflected rod stays inside the tank at every angle
        back_m = min((xR - 0.008 - x) / math.sin(th_max), (depth - 0.008) / math.cos(th_max), 0.3)
        backs.append(back_m)
        ref = st.body(f"back{j}", pos=c, joint=E.Joint("slide", axis=(0, 0, 1), name=f"back{j}_j"))
        ref.parts.append(MASS)
        rb = ref.body(f"backr{j}", pos=(0, 0, 0), joint=E.Joint("hinge", axis=(0, 1, 0), name=f"backr{j}_j"))
        K.beam(st, (0, 0, 0), (0, 0, -back_m), rgb, r_b, body=rb)
    world = K.build_msaa(st)
    adr = {k: [K.qadr(world, f"{k}{j}_j") for j in range(4)] for k in ("in", "park", "out", "back", "backr")}

    def sweep_at(t: float) -> list[float]:
        u = float(np.clip(t / (duration * 0.95), 0, 1))
        u = u * u * (3 - 2 * u)
        return [math.radians(lo + (hi - lo) * u) for lo, hi in sweeps]

    def pose(t: float, law: str, fixed: float | None = None) -> np.ndarray:
        q = np.zeros(world.model.nq)
        for j, th in enumerate(sweep_at(t) if fixed is None else [fixed] * 4):
            ta, _ = _angles(th, _index(law, anti_n, j))
            q[adr["in"][j]] = th                      # the laser below, on the left of its entry point
            q[adr["out"][j]] = ta if ta is not None else 0.0
            q[adr["park"][j]] = 0.0 if ta is not None else PARK
            q[adr["backr"][j]] = -th                  # down and to the right
            q[adr["back"][j]] = PARK if ta is not None else 0.0
        return q

    recs = {"true": K.kinematic(world, duration, FPS, lambda t: pose(t, "true"))}
    first = next(iter(world.render(recs["true"])))
    probe = next(iter(world.render(K.kinematic(world, 1 / FPS, FPS, lambda t: pose(t, "true", math.radians(22))))))
    beams = []
    for j, x in enumerate(xs):
        cp, _, _, ppm = K.image_frame(world, (x, 0, z_s), (1, 0, 0), (0, 0, 1))
        R = R_LASER * ppm
        gap = max(4.0, 0.012 * ppm)
        th = math.radians(22)
        ta = math.asin(N_WATER * math.sin(th))
        w_dir, a_dir = np.array([-math.sin(th), math.cos(th)]), np.array([math.sin(ta), -math.cos(ta)])
        water = K.measured_rgb(probe, [cp + s * R * w_dir for s in np.linspace(0.25, 0.8, 25)])
        air = K.measured_rgb(probe, [cp + s * OUT_M * ppm * a_dir for s in np.linspace(0.2, 0.8, 25)])
        left, right_, down, up = np.array([-1.0, 0.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([0, -1.0])
        beams.append({
            "name": names[j], "color": list(air), "color_water": list(water), "entry": [round(float(v), 3) for v in cp],
            "sweep_deg": list(sweeps[j]),
            "in": _quad(cp, left, down, 2.0, 0.85 * R, gap, 0.85 * R, (W, H)),
            "out": _quad(cp, right_, up, 2.0, 0.9 * OUT_M * ppm, gap, 0.85 * OUT_M * ppm, (W, H)),
            "back": _quad(cp, right_, down, 2.0, 0.9 * backs[j] * ppm, gap, 0.8 * backs[j] * ppm, (W, H)),
        })
    cpl = np.array(world.project((xL, 0, z_s)))
    ppm0 = world.px_per_m((xL, 0, z_s))
    known = {
        "surface_y": round(float(np.mean([b["entry"][1] for b in beams])), 3), "beams": beams, "anti_n": anti_n,
        "surface_region": [round(float(world.project((xL + 0.015, 0, z_s))[0]), 2),  # clear of the first laser
                           round(float(cpl[1] - 0.05 * ppm0), 2),
                           round(float(world.project((xL + 0.045, 0, z_s))[0]), 2),
                           round(float(cpl[1] + 0.05 * ppm0), 2)],
        "studio": {"variant": variant.name, "camera": cam,
                   "motion": "kinematic: the lasers turn about their entry points"},
        "anti_note": "twin: each beam bends and reflects as for its own index anti_n[k]"}
    case = E.studio_case(
        "wmle", "total_internal_reflection", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A long glass tank of still, faintly blue water stands in front of a pale frosted panel. Four small "
                "waterproof laser pointers - red, green, violet and amber - sit under the water, each aimed up at its "
                "own spot on the surface. Over a few seconds each laser slowly tilts about that spot, so its beam "
                "meets the surface more and more steeply or more and more obliquely. At small slants a beam passes "
                "out into the air, bent away from the vertical; at large slants it no longer leaves the water and is "
                "reflected back down from the surface like from a mirror. The camera is fixed and level with the "
                "water surface."),
        assumptions=["one water (n = 1.333) under air", "a flat, still surface",
                     "the lasers turn about fixed entry points; the beams lie in a plane facing the camera"],
        criteria=["P20: M1 of WMLE appendix B.4"],
        quantities={"n": N_WATER, "e1": 0.0, "critical_deg": math.degrees(optics.critical_angle(N_WATER, 1.0))})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, lambda tt: pose(tt, law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


def _quad(c, u, n, a0, a1, b0, b1, size):
    return [[round(float(x), 2), round(float(y), 2)] for x, y in beams.surface_quad(c, u, n, a0, a1, b0, b1, *size)]
