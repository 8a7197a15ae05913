"""Studio scenes of the WMLE optics tasks, drawn in 3-D by MuJoCo.

- P18 ``mirror_reflection``: a laser pointer above a mirror strip (a thin glass box with a reflective face,
  on a stand) shines a beam down at it; the beams are thin self-lit rods in the plane facing the camera
  (visible through a little haze). Nothing moves: the law is drawn from its closed form (equal angles
  from the normal at the contact point). Twin: the reflected beam leaves the contact at ``θi + δ``.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.suites.wmle import _beams
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0
HIDE = (0.0, 0.0, -5.0)  # where a mocap beam of the other clip waits (under the floor)


def _rot_y(beta: float):
    """``u`` (along a surface tilted by ``beta`` rad, image-down positive) and its upward normal ``n`` (world)."""
    return np.array([math.cos(beta), 0.0, -math.sin(beta)]), np.array([math.sin(beta), 0.0, math.cos(beta)])


def _beam_rgb(seed: int, avoid=()):
    name, rgb = _beams.beam_color(seed, avoid)
    return name, rgb


def _quad(c, u, n, a0, a1, b0, b1, size):
    return [[round(float(x), 2), round(float(y), 2)] for x, y in _beams.surface_quad(c, u, n, a0, a1, b0, b1, *size)]


# ----------------------------------------------------------------------------- P18


@scene("wmle", "mirror_reflection")
def mirror_reflection(index: int, seed: int) -> StyledCase:
    label = 18
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    beta = math.radians(float(rng.uniform(-10.0, 10.0)))
    u, n = _rot_y(beta)
    z_c = float(rng.uniform(0.22, 0.3))
    c = np.array([float(rng.uniform(-0.04, 0.04)), 0.0, z_c])        # the contact on the mirror's face
    side = float(rng.choice([-1.0, 1.0]))
    th_i = float(rng.uniform(30.0, 58.0))
    delta = float(rng.uniform(18.0, 28.0)) * (1.0 if th_i < 45.0 else -1.0)
    half = float(rng.uniform(0.3, 0.36))
    L_i = float(rng.uniform(0.26, 0.32))
    thick, depth = 0.008, 0.02
    m_c = c + float(rng.uniform(-0.05, 0.05)) * u                     # the strip's centre
    name, rgb = _beam_rgb(seed)
    src_dir = side * math.sin(math.radians(th_i)) * u + math.cos(math.radians(th_i)) * n
    src = c + L_i * src_dir

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.55)))
    glass_edge = tuple(int(v) for v in rng.uniform([50, 62, 60], [70, 85, 82]))
    body = m_c - 0.5 * thick * n
    mat = st.material(glass_edge, 0.9, reflectance=0.6)
    st.static.append(f'<geom name="mirror" type="box" size="{half:.5g} {0.5 * depth:.5g} {0.5 * thick:.5g}" '
                     f'pos="{E._vec(body)}" euler="0 {math.degrees(beta):.6g} 0" material="{mat}" '
                     'contype="0" conaffinity="0"/>')
    st.objects["mirror"] = ["mirror"]
    stand = tuple(int(v) for v in rng.uniform([150, 110, 70], [200, 160, 120]))
    z_foot = body[2] - 0.5 * thick
    st.fixed(E.box(0.025, 0.025, 0.5 * z_foot), (body[0], 0.02, 0.5 * z_foot), stand, 0.3, **E.NO_CONTACT)
    r_b = 0.0016
    K.beam(st, src, c, rgb, r_b)
    K.laser(st, src, -src_dir)
    glow = K.glass(st, rgb, 0.55, specular=0.0, emission=1.0)
    st.static.append(f'<geom type="sphere" size="{2.5 * r_b:.4g}" pos="{E._vec(c)}" material="{glow}" '
                     'contype="0" conaffinity="0"/>')
    outs = {}
    for law, th in (("true", th_i), ("anti", th_i + delta)):
        d = -side * math.sin(math.radians(th)) * u + math.cos(math.radians(th)) * n
        outs[law] = d
        b = C.mocap(st, f"ray_{law}", (0, 0, 0), []) or st.bodies[-1]
        K.beam(st, c, c + 1.5 * d, rgb, r_b, body=b)
    lo = (min(c[0] - half, src[0]) - 0.04, c[2] - 0.12)
    hi = (max(c[0] + half, src[0]) + 0.04, max(src[2], c[2] + 0.25) + 0.06)
    cam = C.frame_camera(st, rng, variant, lo, hi)
    world = st.build()
    hide = {"true": {"ray_anti": HIDE}, "anti": {"ray_true": HIDE}}
    duration = 2.0
    recs = {"true": K.kinematic(world, duration, FPS, mocap=hide["true"])}
    first = next(iter(world.render(recs["true"])))
    cp, up, npx, ppm = K.image_frame(world, c, u, n)
    mp = np.array(world.project(m_c))
    gap, reach = max(6.0, 0.04 * ppm), 0.85 * L_i * ppm
    beam_px = [cp + s * (np.array(world.project(src)) - cp) for s in np.linspace(0.2, 0.8, 25)]
    beam_rgb = K.measured_rgb(first, beam_px)
    mask = world.masks(recs["true"])["mirror"]
    mirror_rgb = tuple(int(v) for v in np.median(first[mask], axis=0))
    th_px, half_px = thick * ppm, half * ppm
    known = {
        "contact": [round(float(v), 3) for v in cp], "mirror_tangent": up.tolist(), "mirror_normal": npx.tolist(),
        "laser_side": side, "theta_i_deg": round(th_i, 4), "source": [round(v, 3) for v in world.project(src)],
        "beam_name": name, "beam_color": list(beam_rgb), "mirror_color": list(mirror_rgb),
        "anti_delta_deg": round(delta, 4),
        "incident_region": _quad(cp, up * side, npx, gap, reach, gap, reach, (W, H)),
        "reflected_region": _quad(cp, -up * side, npx, gap, reach, gap, reach, (W, H)),
        "mirror_region": _quad(mp, up, npx, -half_px + 0.12 * half_px, half_px - 0.12 * half_px,
                               -th_px - 0.02 * ppm, 0.02 * ppm, (W, H)),
        "studio": {"variant": variant.name, "camera": cam, "motion": "static: the law's closed form"},
        "anti_note": "twin: the reflected beam leaves at theta_i + anti_delta_deg from the normal"}
    case = E.studio_case(
        "wmle", "mirror_reflection", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=(f"A small laser pointer is clamped above a flat mirror strip lying on a wooden stand and shines a "
                f"thin {name} beam down at the mirror, about {th_i:.0f} degrees from the mirror's perpendicular. "
                "A little haze makes the beam visible both on its way down and after it bounces off the mirror; "
                "the spot where it meets the mirror is in view. Nothing moves and the camera is fixed."),
        assumptions=["a flat specular mirror", "a fixed laser and camera", "the beams lie in a plane facing the camera"],
        criteria=["P18: M1/M2 of WMLE appendix B.4"],
        quantities={"theta_i_deg": th_i, "theta_r_deg": th_i, "e1": 0.0, "e2": 0.0, "anti_e1": abs(delta)})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, mocap=hide[law])
        return world.render(recs[law])

    return StyledCase(case, first, render)
