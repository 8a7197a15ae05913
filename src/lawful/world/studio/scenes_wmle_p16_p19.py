"""Studio scenes of the WMLE optics tasks P16–P19 (P20: :mod:`.scenes_wmle_p20`), drawn in 3-D by MuJoCo.

- P16 ``cross_ratio``: a wooden pole with four coloured balls leans on a wall and slides down it (top on the
  wall, foot out along the floor), filmed by a camera turned 15–25° from square-on, so the image spacings
  change while the cross-ratio does not. Motion: **kinematic**, the task's closed form (the pole's angle
  eases from φ0 to φ1). Twin: the third ball creeps along the pole (``anti_drift`` of its length).
- P17 ``refraction``: a glass tank of tinted water in front of a frosted panel; a laser above shines down
  onto the surface and the beam continues, bent, to the bottom or a side wall. The beams lie in the tank's
  mid-plane, which faces the camera; the camera is level with the surface (seen edge-on, as one films
  it), so the surface's row is the contact's. Static: the law's closed form (Snell, n = 1.333). Twin: the
  beam bends as for ``anti_n`` (1.0 or 2.0).
- P19 ``concurrent_shadows``: seen from high above (the camera's plumb line through the lamp's foot, so
  the rods' own images point away from it too), a small bulb hangs over a plain floor and is the only
  light; four thin vertical rods around it cast shadows by MuJoCo's own shadow mapping of that point
  light. Static. Twin: the rods cast no shadows of their own and dark shadow-shaped patches lie on the
  floor turned about each rod by ``anti_turn_deg`` (no single lamp could cast them).
- P18 ``mirror_reflection``: a laser pointer above a mirror strip (a thin glass box with a reflective face,
  on a stand) shines a beam down at it; the beams are thin self-lit rods in the plane facing the camera
  (visible through a little haze). Nothing moves: the law is drawn from its closed form (equal angles
  from the normal at the contact point). Twin: the reflected beam leaves the contact at ``θi + δ``.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.world import optics
from lawful.world.scenes import beams
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
    name, rgb = beams.beam_color(seed, avoid)
    return name, rgb


def _beam_radius(cam: dict, height: int, px: float = 1.3) -> float:
    """A beam's radius (m): 1.6 mm, or ``px`` pixels where the framing makes that thicker (hazy beams glow)."""
    ppm = 0.5 * height / math.tan(math.radians(cam["fovy_deg"]) / 2) / cam["distance_m"]
    return max(0.0016, px / ppm)


def _quad(c, u, n, a0, a1, b0, b1, size):
    return [[round(float(x), 2), round(float(y), 2)] for x, y in beams.surface_quad(c, u, n, a0, a1, b0, b1, *size)]


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
    lo = (min(c[0] - half, src[0]) - 0.04, c[2] - 0.12)
    hi = (max(c[0] + half, src[0]) + 0.04, max(src[2], c[2] + 0.25) + 0.06)
    cam = C.frame_camera(st, rng, variant, lo, hi)
    r_b = _beam_radius(cam, H)
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
        assumptions=["a flat specular mirror", "a fixed laser and camera",
                     "the beams lie in a plane facing the camera"],
        criteria=["P18: M1/M2 of WMLE appendix B.4"],
        quantities={"theta_i_deg": th_i, "theta_r_deg": th_i, "e1": 0.0, "e2": 0.0, "anti_e1": abs(delta)})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, mocap=hide[law])
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P17

N_WATER = 1.333
TINTS = {"blue": (60, 130, 205), "teal": (35, 160, 155), "amber": (205, 150, 55)}


@scene("wmle", "refraction")
def refraction(index: int, seed: int) -> StyledCase:
    label = 17
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    w_t, d_t = float(rng.uniform(0.46, 0.54)), float(rng.uniform(0.12, 0.16))
    z_b = float(rng.uniform(0.0, 0.03)) + 0.012          # the tank's inner floor (on a thin glass base)
    depth = float(rng.uniform(0.17, 0.2))
    z_s = z_b + depth                                    # the water surface
    z_top = z_s + float(rng.uniform(0.1, 0.13))
    side = float(rng.choice([-1.0, 1.0]))                # +1: the laser is on the left, the beam travels right
    th_i = float(rng.uniform(35.0, 58.0))
    x_c = side * float(rng.uniform(0.01, 0.07))
    h_src = float(rng.uniform(0.2, 0.25))                 # the aperture above the surface
    tint_name = ("blue", "teal", "amber")[int(rng.integers(3))]
    name, rgb = _beam_rgb(seed, avoid=("violet",) if tint_name == "blue" else ())
    anti_n = float(rng.choice([1.0, 2.0]))
    xL, xR = -0.5 * w_t, 0.5 * w_t
    c = np.array([x_c, 0.0, z_s])
    src = c + np.array([-side * h_src * math.tan(math.radians(th_i)), 0.0, h_src])

    st.floor()
    st.backdrop(y=float(rng.uniform(0.35, 0.6)))
    _panel(st, rng, xL - 0.04, xR + 0.04, z_b - 0.012, z_top + 0.03, y=0.5 * d_t + 0.03)
    gmat = K.glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.08, 0.14)))
    st.static.append(f'<geom name="tank" type="box" size="{0.5 * w_t + 0.005:.5g} {0.5 * d_t + 0.005:.5g} '
                     f'{0.5 * (z_top - z_b + 0.012):.5g}" pos="0 0 {0.5 * (z_top + z_b - 0.012):.5g}" '
                     f'material="{gmat}" contype="0" conaffinity="0"/>')
    tint = tuple(int(v) for v in np.clip(np.asarray(TINTS[tint_name]) + rng.uniform(-12, 12, 3), 0, 255))
    wmat = K.glass(st, tint, float(rng.uniform(0.18, 0.25)), specular=0.4)  # a laser scatters brightly in water
    st.static.append(f'<geom name="water" type="box" size="{0.5 * w_t:.5g} {0.5 * d_t:.5g} {0.5 * depth:.5g}" '
                     f'pos="0 0 {0.5 * (z_b + z_s):.5g}" material="{wmat}" contype="0" conaffinity="0"/>')
    half = max(z_top + 0.04 - z_s, src[2] + 0.05 - z_s, z_s - z_b + 0.04)
    cam = C.frame_camera(st, rng, variant, (xL - 0.05, z_s - half), (xR + 0.05, z_s + half), max_tilt_deg=0.0)
    r_b = _beam_radius(cam, H)
    K.beam(st, src, c, rgb, r_b)
    K.laser(st, src, c - src)
    ends = {}
    for law, n_idx in (("true", N_WATER), ("anti", anti_n)):
        th_r = math.asin(math.sin(math.radians(th_i)) / n_idx)
        d = np.array([side * math.sin(th_r), 0.0, -math.cos(th_r)])
        wall = xR if side > 0 else xL
        s_end = min(depth / -d[2], (wall - c[0]) / d[0] if abs(d[0]) > 1e-9 else 1e9) - 0.004
        ends[law] = (c + s_end * d, math.degrees(th_r))
        C.mocap(st, f"ray_{law}", (0, 0, 0), [])
        K.beam(st, c, ends[law][0], rgb, 2.5 * r_b, body=st.bodies[-1])  # it scatters more in water: broader
    pos, right, upv, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z_s]), right, upv, fov)  # level with the surface
    cam["pos"][2] = round(z_s, 4)
    world = K.build_msaa(st)  # area-sampled beams: a thin line survives video compression
    hide = {"true": {"ray_anti": HIDE}, "anti": {"ray_true": HIDE}}
    duration = 2.0
    recs = {"true": K.kinematic(world, duration, FPS, mocap=hide["true"])}
    first = next(iter(world.render(recs["true"])))
    cp, _, _, ppm = K.image_frame(world, c, (1, 0, 0), (0, 0, 1))
    up, along = np.array([0.0, -1.0]), np.array([-side, 0.0])  # towards the light; towards the laser (image)
    gap = max(4.0, 0.012 * ppm)
    xl_px, xr_px = world.project((xL, 0, z_s))[0], world.project((xR, 0, z_s))[0]
    to_wall = (xr_px - cp[0]) if side > 0 else (cp[0] - xl_px)
    floor_px = world.project((x_c, 0, z_b))[1] - cp[1]
    src_px = np.array(world.project(src))
    band_x = (xL + 0.025, xL + 0.09) if side > 0 else (xR - 0.09, xR - 0.025)
    bx0, bx1 = sorted(world.project((x, -0.5 * d_t, z_s))[0] for x in band_x)
    ytop, ybot = world.project((0, -0.5 * d_t, z_s + 0.06))[1], world.project((0, -0.5 * d_t, z_s - 0.06))[1]
    beam_rgb = K.measured_rgb(first, [cp + s * (src_px - cp) for s in np.linspace(0.2, 0.8, 25)])
    end_px = np.array(world.project(ends["true"][0]))  # seen through the tinted water, the beam's colour differs
    water_rgb = K.measured_rgb(first, [cp + s * (end_px - cp) for s in np.linspace(0.2, 0.8, 25)])
    known = {
        "tank": [round(xl_px, 2), round(world.project((0, 0, z_top))[1], 2), round(xr_px, 2),
                 round(world.project((0, 0, z_b))[1], 2)],
        "surface_y": round(float(cp[1]), 3), "contact": [round(float(v), 3) for v in cp],
        "source": [round(float(v), 3) for v in src_px], "laser_side": side, "theta_i_deg": round(th_i, 4),
        "tint_name": tint_name, "tint": list(tint), "beam_name": name, "beam_color": list(beam_rgb), "beam_color_water": list(water_rgb),
        "anti_n": anti_n, "container_width_px": round(xr_px - xl_px, 3),
        "surface_region": [round(bx0, 2), round(ytop, 2), round(bx1, 2), round(ybot, 2)],
        "incident_region": _quad(cp, along, up, 2.0, 0.9 * float(np.hypot(*(src_px - cp))), gap,
                                 0.9 * float(cp[1] - src_px[1]), (W, H)),
        "refracted_region": _quad(cp, -along, up, -0.04 * ppm, min(0.4 * ppm, to_wall - 5), -(floor_px - 5), -gap,
                                  (W, H)),
        "studio": {"variant": variant.name, "camera": cam, "motion": "static: the law's closed form"},
        "anti_note": "twin: the beam bends as for refractive index anti_n (1.0 or 2.0)"}
    case = E.studio_case(
        "wmle", "refraction", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[], known=known,
        variant=f"studio-{variant.name}",
        prompt=(f"A glass tank, half full of still {tint_name}-tinted water, stands in front of a pale frosted panel. "
                f"A laser pointer clamped above the tank on the {'left' if side > 0 else 'right'} shines a thin "
                f"{name} beam down onto the water surface, about {th_i:.0f} degrees from the vertical; the beam is "
                "visible in the air and inside the water, where it continues down towards the bottom. Nothing moves; "
                "the camera is fixed and level with the water surface."),
        assumptions=["clear water of refractive index 1.333 under air", "a flat, still surface",
                     "a fixed laser and camera; the beam lies in a plane facing the camera"],
        criteria=["P17: M1/M2 of WMLE appendix B.4"],
        quantities={"theta_i_deg": th_i, "theta_r_deg": ends["true"][1], "e1": 0.0, "e2": 0.0,
                    "anti_e1": anti_n - N_WATER})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, mocap=hide[law])
        return world.render(recs[law])

    return StyledCase(case, first, render)


def _panel(st: E.Stage, rng, x0: float, x1: float, z0: float, z1: float, y: float) -> None:
    """A pale frosted panel lit from behind (a light box) standing behind an apparatus: the beam shows against
    it, and the apparatus's shadows on it are faint."""
    tone = rng.uniform(200, 238) + rng.uniform(-8, 8, 3)
    mat = K.glass(st, tuple(np.clip(tone, 0, 255)), 1.0, specular=0.05, emission=float(rng.uniform(0.45, 0.6)))
    st.static.append(f'<geom name="panel" type="box" size="{0.5 * (x1 - x0):.5g} 0.005 {0.5 * (z1 - z0):.5g}" '
                     f'pos="{0.5 * (x0 + x1):.5g} {y:.5g} {0.5 * (z0 + z1):.5g}" material="{mat}" '
                     'contype="0" conaffinity="0"/>')


# ----------------------------------------------------------------------------- P19

N_RODS = 4


@scene("wmle", "concurrent_shadows")
def concurrent_shadows(index: int, seed: int) -> StyledCase:
    label = 19
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    st.look.floor = "flat"  # a plain floor: a shadow is the only dark thing on it
    h_L = float(rng.uniform(0.6, 0.75))
    kappa = float(rng.uniform(0.6, 0.85))
    h_r = h_L * kappa / (1 + kappa)                        # rod height: kappa = h_r / (h_L - h_r)
    rho = float(rng.uniform(0.007, 0.01))
    fov = float(rng.uniform(26.0, 34.0))
    half_y = 0.5 * float(rng.uniform(0.85, 1.0))           # the floor's half-extent seen along the short side
    aspect = W / H
    hx, hy = (half_y * aspect, half_y) if aspect >= 1 else (half_y, half_y / aspect)
    Hc = hy / math.tan(math.radians(fov) / 2)
    lamp = np.array([float(rng.uniform(-0.1, 0.1)) * hx, float(rng.uniform(-0.08, 0.08)) * hy])
    a0 = float(rng.uniform(0.0, 72.0))
    alphas = [a0 + 72.0 * k + float(rng.uniform(-4.0, 4.0)) for k in range(N_RODS)]
    turns = np.array([float(rng.uniform(14.0, 22.0)) for _ in range(N_RODS)])
    signs = np.array([1.0, -1.0, 1.0, -1.0]) * float(rng.choice([-1.0, 1.0]))
    st.floor()
    metal = tuple(int(v) for v in rng.uniform(175, 215, 3))
    rods = []
    for a in alphas:
        e = np.array([math.cos(math.radians(a)), math.sin(math.radians(a))])
        room = min((hx - abs(lamp[0])) / max(abs(e[0]), 1e-6), (hy - abs(lamp[1])) / max(abs(e[1]), 1e-6)) - 0.06
        d = min(0.3, room / (1.0 + kappa))
        rods.append({"xy": lamp + d * e, "e": e, "d": d, "alpha": a})
        st.fixed(E.cylinder(rho, 0.5 * h_r), (*(lamp + d * e), 0.5 * h_r), metal, 0.7, **E.NO_CONTACT)
    bulb = K.glass(st, (255, 246, 214), 1.0, specular=0.0, emission=1.0)
    st.static.append(f'<geom type="sphere" size="0.014" pos="{lamp[0]:.5g} {lamp[1]:.5g} {h_L:.5g}" material="{bulb}" '
                     'contype="0" conaffinity="0"/>')
    cord = E.capsule(0.002, (lamp[0], lamp[1], h_L + 0.012), (lamp[0], lamp[1], Hc - 0.05))
    st.static.append(f'<geom {E._attrs(cord)} material="{st.material((40, 40, 40), 0.2)}" '
                     'contype="0" conaffinity="0"/>')
    # the twin's patches: shadow-shaped, dark, turned about each rod
    patch = K.glass(st, (22, 22, 26), 0.45, specular=0.0)
    geoms = []
    for j, r in enumerate(rods):
        a = math.radians(r["alpha"] + signs[j] * turns[j])
        e = np.array([math.cos(a), math.sin(a)])
        L = r["d"] * kappa
        mid = r["xy"] + 0.5 * L * e
        w = rho * (1.0 + 0.5 * kappa)  # a point source widens a shadow with distance
        geoms.append(f'<geom type="box" size="{0.5 * L:.5g} {w:.5g} 0.0004" pos="{mid[0]:.5g} {mid[1]:.5g} 0.0005" '
                     f'euler="0 0 {math.degrees(a):.6g}" material="{patch}" contype="0" conaffinity="0"/>')
    C.mocap(st, "patches", HIDE, geoms)
    tilt = math.radians(1.0)  # a hair off straight down (MuJoCo's free camera needs a horizon)
    st.camera(pos=(lamp[0], lamp[1], Hc), lookat=(lamp[0], lamp[1] + Hc * math.tan(tilt), 0.0), fovy=fov)
    light = (f'<light name="lamp" pos="{lamp[0]:.5g} {lamp[1]:.5g} {h_L:.5g}" dir="0 0 -1" directional="false" '
             f'castshadow="true" cutoff="70" exponent="1" attenuation="1 0 0" diffuse="0.9 0.88 0.8" '
             f'specular="0.3 0.3 0.3"/>')
    world = K.build_lit(st, light)
    duration = 2.0
    where = {"true": {"patches": HIDE}, "anti": {"patches": (0.0, 0.0, 0.0)}}
    lid = world.model.light("lamp").id
    recs = {"true": K.kinematic(world, duration, FPS, mocap=where["true"])}
    first = next(iter(world.render(recs["true"])))
    foot = np.array(world.project((*lamp, 0.0)))
    regions, rods_px = [], []
    for r in rods:
        e3 = np.array([*r["e"], 0.0])
        n3 = np.array([-r["e"][1], r["e"][0], 0.0])
        base = np.array([*r["xy"], 0.0])
        top = np.array(world.project(base + np.array([0, 0, h_r])))
        b_px = np.array(world.project(base))
        start = max(rho + 0.012, float(np.hypot(*(top - b_px))) / world.px_per_m(base) + 0.012)
        L = r["d"] * kappa
        far = L + 0.03
        tw = math.tan(math.radians(30.0))
        quad = [base + start * e3 + (rho + 0.014) * n3, base + far * e3 + (far * tw + 0.016) * n3,
                base + far * e3 - (far * tw + 0.016) * n3, base + start * e3 - (rho + 0.014) * n3]
        poly = optics.clip_polygon([world.project(p) for p in quad], W, H)
        regions.append([[round(float(x), 2), round(float(y), 2)] for x, y in poly])
        rods_px.append({"x": round(float(b_px[0]), 3), "y": round(float(b_px[1]), 3), "alpha_deg": round(r["alpha"], 4),
                        "d_m": round(r["d"], 5)})
    known = {"lamp": [round(float(v), 3) for v in foot], "rods": rods_px, "height_ratio": round(kappa, 5),
             "rod_radius_px": round(rho * world.px_per_m((*lamp, 0.0)), 3), "shadow_regions": regions,
             "anti_turn_deg": [round(float(v), 4) for v in signs * turns],
             "studio": {"variant": variant.name, "camera": {"pos": [round(float(lamp[0]), 4), round(float(lamp[1]), 4),
                                                                    round(Hc, 4)], "fovy_deg": round(fov, 3)},
                        "motion": "static: MuJoCo's own shadows of a point light"},
             "anti_note": "twin: the rods cast no shadow; dark patches turned by anti_turn_deg lie where shadows would"}
    case = E.studio_case(
        "wmle", "concurrent_shadows", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("Looking straight down at a plain floor from high above. A single small, bright bulb hangs low over "
                "the floor on a cord and is the only light. Four identical thin vertical metal rods stand upright "
                "around it at different distances and directions, each casting a sharp dark shadow on the floor. "
                "Nothing moves; the camera is fixed."),
        assumptions=["one small (point-like) light source", "vertical rods on a flat floor",
                     "a fixed camera looking down"],
        criteria=["P19: M1/M2 of WMLE appendix B.4"],
        quantities={"common_x": float(foot[0]), "common_y": float(foot[1]), "e1": 0.0, "e2": 0.0})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, mocap=where[law])

        def frames():
            world.model.light_castshadow[lid] = law == "true"
            try:
                yield from world.render(recs[law])
            finally:
                world.model.light_castshadow[lid] = True
        return frames()

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P16


@scene("wmle", "cross_ratio")
def cross_ratio(index: int, seed: int) -> StyledCase:
    from lawful.world.scenes.light import MARKERS as IDS
    from lawful.world.scenes.light import marker_drift as _drift_for

    label = 16
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    L = float(rng.uniform(0.95, 1.1))
    phi0, phi1 = float(rng.uniform(64.0, 72.0)), float(rng.uniform(22.0, 30.0))
    s_m = [float(rng.uniform(0.06, 0.12)), float(rng.uniform(0.30, 0.40)), float(rng.uniform(0.56, 0.66)),
           float(rng.uniform(0.88, 0.94))]
    drift = _drift_for(s_m, 1.0 + float(rng.uniform(0.22, 0.30)))
    hold, slide = float(rng.uniform(0.25, 0.4)), float(rng.uniform(2.6, 3.0))
    duration = round(hold + slide + 0.3, 3)
    yaw = float(rng.uniform(15.0, 25.0)) * float(rng.choice([-1.0, 1.0]))
    r, r_rod = float(rng.uniform(0.032, 0.038)), 0.012
    colors = C.object_rgbs(rng, 4, min_sep=0.12, avoid=C.scene_hues(st.look))
    st.floor()
    st.backdrop(y=float(rng.uniform(0.5, 0.8)))
    wall_rgb = tuple(int(v) for v in rng.uniform(150, 215, 3))
    st.fixed(E.box(0.03, 0.35, 0.75), (-0.03 - r_rod, 0.0, 0.75), wall_rgb, 0.1, **E.NO_CONTACT)
    wood = tuple(int(v) for v in rng.uniform([120, 80, 45], [160, 115, 75]))
    pole = st.body("pole", pos=(0, 0, 0), joint="free")
    pole.geom(E.capsule(r_rod, (0, 0, 0), (L, 0, 0)), rgb=wood, specular=0.2, **E.NO_CONTACT)
    for j, (oid, col) in enumerate(zip(IDS, colors)):
        if j == 2:
            b = pole.body("creep", pos=(s_m[j] * L, 0, 0), joint=E.Joint("slide", axis=(1, 0, 0), name="creep_j"))
            b.geom(E.sphere(r), rgb=col, obj=oid, specular=0.6, **E.NO_CONTACT)
        else:
            pole.geom(E.sphere(r), rgb=col, obj=oid, pos=(s_m[j] * L, 0, 0), specular=0.6, **E.NO_CONTACT)
    x_end = L * math.cos(math.radians(phi1))
    if variant.distractor:
        st.distractor(E.sphere(r), pos=(x_end + 0.12, 0.15, r), near=colors[int(rng.integers(4))])
    cam = C.frame_camera(st, rng, variant, (-0.12, -0.02), (x_end + 0.2, L * math.sin(math.radians(phi0)) + 0.12))
    pos, target = np.asarray(cam["pos"], float), np.asarray(cam["lookat"], float)
    c, sn = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    v = pos - target
    pos = target + np.array([c * v[0] - sn * v[1], sn * v[0] + c * v[1], v[2]])  # turned about the vertical
    st.camera(pos=tuple(pos), lookat=tuple(target), fovy=cam["fovy_deg"])
    cam.update(pos=[round(float(x), 4) for x in pos], yaw_deg=round(yaw, 3))
    world = st.build()
    qc = K.qadr(world, "creep_j")

    def pose(t, law):
        u = float(np.clip((t - hold) / slide, 0, 1))
        u = u * u * (3 - 2 * u)
        phi = math.radians(phi0 + (phi1 - phi0) * u)
        q = np.zeros(world.model.nq)
        q[:7] = [0.0, 0.0, L * math.sin(phi), math.cos(phi / 2), 0.0, math.sin(phi / 2), 0.0]
        q[qc] = drift * L * u if law == "anti" else 0.0
        return q, phi

    recs = {"true": K.kinematic(world, duration, FPS, lambda t: pose(t, "true")[0])}
    first = next(iter(world.render(recs["true"])))
    masks = world.masks(recs["true"])
    objects = [world.object_spec(oid, "sphere", first, masks) for oid in IDS]
    t = recs["true"].times[:, recs["true"].times.shape[1] // 2]
    tracks = {oid: [] for oid in IDS}
    for ti in t:
        _, phi = pose(ti, "true")
        top = np.array([0.0, 0.0, L * math.sin(phi)])
        d = np.array([math.cos(phi), 0.0, -math.sin(phi)])
        for oid, sj in zip(IDS, s_m):
            tracks[oid].append((round(float(ti), 5), *(round(v, 3) for v in world.project(top + sj * L * d))))
    known = {"rod_m": round(L, 4), "phi0_deg": round(phi0, 3), "phi1_deg": round(phi1, 3), "hold_s": round(hold, 4),
             "slide_s": round(slide, 4), "marker_s": [round(x, 5) for x in s_m], "anti_marker": 3,
             "anti_drift": round(drift, 6), "colors": [list(o.color) for o in objects],
             "studio": {"variant": variant.name, "camera": cam, "motion": "kinematic: eased slide"},
             "anti_note": "twin: one inner marker creeps along the pole by anti_drift of its length"}
    case = E.studio_case(
        "wmle", "cross_ratio", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=objects,
        known=known, variant=f"studio-{variant.name}",
        prompt=("A straight wooden pole leans against a vertical wall, its foot on a flat floor, seen by a camera "
                "that looks at it from an angle. Four small coloured balls are fixed along the pole. After a moment "
                "the foot slips: the top slides down the wall while the foot slides out along the floor, the pole "
                "staying straight, until it lies much flatter. The camera does not move; everything stays in view."),
        assumptions=["the pole and the markers' spacing are rigid", "the markers lie on the pole's axis",
                     "a fixed camera (a projective view)"],
        criteria=["P16: M1/M2 of WMLE appendix B.4"],
        quantities={"chi_world": optics.cross_ratio(s_m), "e1": 0.0, "e2": 0.0})
    case.truth.tracks = tracks

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, lambda tt: pose(tt, law)[0])
        return world.render(recs[law])

    return StyledCase(case, first, render)
