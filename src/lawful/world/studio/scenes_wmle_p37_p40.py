"""Studio scenes of the WMLE surface-tension tasks P37, P39 and P40, drawn in 3-D by MuJoCo.

- P37 ``capillary_rise``: see :func:`capillary_rise`.
- P39 ``double_bubble``: see :func:`double_bubble`.
- P40 ``droplet_coalescence``: see :func:`droplet_coalescence`.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.world import liquids as lq
from lawful.world import melting as mt
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import _wmle_p24_p40 as P
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0


def _tint(rng: np.random.Generator, base, spread: float = 12.0) -> tuple[int, int, int]:
    return tuple(int(v) for v in np.clip(np.asarray(base, float) + rng.uniform(-spread, spread, 3), 0, 255))


# ----------------------------------------------------------------------------- P37


@scene("wmle", "capillary_rise")
def capillary_rise(index: int, seed: int) -> StyledCase:
    """P37: a narrow and a wide glass tube dipped upright, side by side, into a glass basin of dyed water.

    Motion: **kinematic**, the task's closed forms: each tube's column rises from the reservoir's level toward
    Jurin's height ``2γ cos θ / (ρ g r)`` (:func:`lawful.world.melting.jurin_height`, water on clean glass) along
    the Lucas–Washburn curve (:func:`~lawful.world.melting.washburn_rise`, ``τ ∝ r⁻³``). The column is an opaque
    cylinder of the dye on a slide joint inside a translucent glass tube. Heights are to scale; the bores are drawn
    magnified ``MAG`` times (widths ∝ radii, as the flat style draws them): a 0.3-mm bore is not a readable column
    at any framing that also shows a 5-cm rise. The camera is level with the reservoir's surface (seen edge-on).
    Twin: the two tubes' equilibrium heights swapped (the wide tube rises higher).
    """
    label = 37
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    mag = float(rng.uniform(7.0, 9.0))                    # bore drawn this many times its radius
    r_n = float(rng.uniform(0.28, 0.36)) * 1e-3           # bore radii (m)
    r_w = r_n * float(rng.uniform(2.3, 3.0))
    h_eq = {"narrow": mt.jurin_height(r_n), "wide": mt.jurin_height(r_w)}
    tau = {"narrow": float(rng.uniform(0.5, 0.8))}
    tau["wide"] = mt.washburn_tau(tau["narrow"], r_n, r_w)
    rd = {"narrow": mag * r_n, "wide": mag * r_w}        # drawn bore radii
    wall = float(rng.uniform(0.0012, 0.0018))
    narrow_left = bool(rng.integers(2))
    gap = float(rng.uniform(0.025, 0.04))
    order = ("narrow", "wide") if narrow_left else ("wide", "narrow")
    span = rd["narrow"] + rd["wide"] + 2 * wall + gap
    x0 = -0.5 * span + rd[order[0]] + wall
    xs = {order[0]: x0, order[1]: x0 + rd[order[0]] + rd[order[1]] + 2 * wall + gap}
    z_res = float(rng.uniform(0.05, 0.06))                # the reservoir's surface
    z_top = z_res + h_eq["narrow"] + float(rng.uniform(0.018, 0.026))  # the tubes' upper ends
    z_bot = z_res - 0.035                                 # the tubes' lower ends, in the liquid
    half_d = 0.03                                         # basin half depth (y)
    res_side = 1 if narrow_left else -1                   # the reservoir band lies beyond the wide tube
    bx0 = min(xs.values()) - max(rd.values()) - 0.03
    bx1 = max(xs.values()) + max(rd.values()) + 0.03
    if res_side > 0:
        bx1 += 0.035
    else:
        bx0 -= 0.035
    liquid = _tint(rng, lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))], 15)
    duration = 5.0

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.5)))
    P.board(st, rng, bx0 - 0.04, bx1 + 0.04, 0.0, z_top + 0.04, y=half_d + 0.03)
    z_f = 0.008                                           # the basin's floor (inside)
    st.fixed(E.box(0.5 * (bx1 - bx0) + 0.003, half_d + 0.003, 0.5 * z_f), (0.5 * (bx0 + bx1), 0, 0.5 * z_f),
             tuple(rng.uniform(60, 95, 3)), 0.3)
    gmat = K.glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.1, 0.16)))
    lmat = K.glass(st, liquid, 1.0, specular=0.4)
    wall_h = z_res + 0.02 - z_f
    st.static.append(f'<geom name="basin" type="box" size="{0.5 * (bx1 - bx0) + 0.003:.5g} {half_d + 0.003:.5g} '
                     f'{0.5 * wall_h:.5g}" pos="{0.5 * (bx0 + bx1):.5g} 0 {z_f + 0.5 * wall_h:.5g}" '
                     f'material="{gmat}" contype="0" conaffinity="0"/>')
    st.static.append(f'<geom name="reservoir" type="box" size="{0.5 * (bx1 - bx0):.5g} {half_d:.5g} '
                     f'{0.5 * (z_res - z_f):.5g}" pos="{0.5 * (bx0 + bx1):.5g} 0 {0.5 * (z_res + z_f):.5g}" '
                     f'material="{lmat}" contype="0" conaffinity="0"/>')
    metal = tuple(int(v) for v in rng.uniform(110, 160, 3))
    clamp_y = max(rd.values()) + wall + 0.004            # behind the tubes, across their upper ends
    st.fixed(E.box(0.5 * span + 0.012, 0.003, 0.003), (0.0, clamp_y, z_top - 0.004), metal, 0.8, **E.NO_CONTACT)
    col_len = z_top - z_bot
    for a in ("narrow", "wide"):
        x, r = xs[a], rd[a]
        st.static.append(f'<geom name="tube_{a}" type="cylinder" size="{r + wall:.5g} {0.5 * (z_top - z_bot):.5g}" '
                         f'pos="{x:.5g} 0 {0.5 * (z_top + z_bot):.5g}" material="{gmat}" contype="0" conaffinity="0"/>')
        body = K.slide_body(st, f"col_{a}", (x, 0.0, z_res))  # qpos: the column's rise above the reservoir
        body.parts.append(f'<geom name="col_{a}_g" type="cylinder" size="{0.96 * r:.5g} {0.5 * col_len:.5g}" '
                          f'pos="0 0 {-0.5 * col_len:.5g}" material="{lmat}" contype="0" conaffinity="0"/>')
    lo, hi = [bx0 - 0.01, z_bot - 0.01], [bx1 + 0.01, z_top + 0.012]
    cam = C.frame_camera(st, rng, variant, lo, hi, max_tilt_deg=0.0, fovy=(18.0, 26.0))
    pos, right, up, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z_res]), right, up, fov)  # level with the reservoir's surface
    cam["pos"][2] = round(z_res, 4)
    world = st.build()  # M1 is an order (tens of pixels apart): aliased edges are fine
    adr = {a: K.qadr(world, f"col_{a}_j") for a in ("narrow", "wide")}

    def heights(law: str) -> dict[str, float]:
        return dict(h_eq) if law == "true" else {"narrow": h_eq["wide"], "wide": h_eq["narrow"]}

    def qpos_of(law: str):
        h = heights(law)

        def f(t):
            q = np.zeros(world.model.nq)
            for a in ("narrow", "wide"):
                q[adr[a]] = float(mt.washburn_rise(t, h[a], tau[a]))
            return q
        return f

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    px = world.project
    y_res = px((0.0, -half_d, z_res))[1]
    tubes = {}
    for a in ("narrow", "wide"):
        # from just below the tube's top to well below the surface: the band's lowest 15 % of rows (where the
        # level probe learns the liquid's colour) lie in the reservoir
        tubes[a] = K.band_of(world, (xs[a], 0.0), rd[a], z_res - 0.25 * (z_top - z_res), z_top - 0.01, share=0.5,
                             pad_px=0.0)
    xr = bx1 - 0.022 if res_side > 0 else bx0 + 0.022
    xa, _ = px((xr - 0.008, -half_d, z_res))
    xb, _ = px((xr + 0.008, -half_d, z_res))
    ya, yb = px((xr, -half_d, z_res + 0.012))[1], px((xr, -half_d, z_res - 0.012))[1]
    h_px = {a: px((xs[a], -rd[a], z_res))[1] - px((xs[a], -rd[a], z_res + h_eq[a]))[1] for a in h_eq}
    known = {"reservoir_band": [round(xa, 2), round(ya, 2), round(xb, 2), round(yb, 2)], "tubes": tubes,
             "y_reservoir": round(y_res, 3), "radius_mm": {a: r * 1e3 for a, r in (("narrow", r_n), ("wide", r_w))},
             "h_m": h_eq, "h_px": h_px, "tau_s": tau, "bore_magnification": round(mag, 4), "liquid": list(liquid),
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: Jurin heights reached along the Lucas–Washburn rise"},
             "anti_note": "twin: the tubes' heights swapped (the wide tube rises higher)"}
    case = E.studio_case(
        "wmle", "capillary_rise", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera, level with the water's surface, looks at a clear glass basin of dyed water in front "
                "of a pale board. Two clean, dry, open glass tubes held upright in a clamp have just been dipped "
                f"into it side by side, the {'left' if narrow_left else 'right'} one very thin inside and the other "
                f"about {r_w / r_n:.1f} times wider. The water creeps up inside each tube and comes to rest; nothing "
                "else moves and the camera stays still."),
        assumptions=["one liquid, wetting clean glass alike in both tubes", "tubes open at both ends, upright",
                     "fixed side view, uniform time", "bores drawn magnified (widths ∝ radii), heights to scale"],
        criteria=["P37: M1 of WMLE appendix B.9"],
        quantities={"d_px": h_px["narrow"] - h_px["wide"], "anti_d_px": h_px["wide"] - h_px["narrow"],
                    "h_narrow_px": h_px["narrow"], "h_wide_px": h_px["wide"]})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P40


@scene("wmle", "droplet_coalescence")
def droplet_coalescence(index: int, seed: int) -> StyledCase:
    """P40: two unequal drops of a dyed water–glycerol mix floating weightless (as aboard an orbiting station) in
    front of a backdrop drift together, touch, merge and settle into one round drop.

    Motion: **kinematic**, the law's closed forms (:func:`~._wmle_p24_p40.drop_state`): the merged drop's volume is the sum of the two
    (``r_f = (r1³ + r2³)^{1/3}``), its shape oscillation the l = 2 mode of a free drop of that size and liquid
    (:func:`lawful.world.physics_more.rayleigh_frequency`, :func:`~lawful.world.physics_more.shape_mode_decay`),
    in real time. Drops are glossy spheres and a spheroid whose sizes are set per sub-frame
    (:class:`~._wmle_p24_p40.Scaled` ``sizes``). The camera is level with the drops, a long lens from afar (a
    sphere's outline is then its true size to 0.1 %). Twin: the merged drop keeps the projected area,
    ``r_f = √(r1² + r2²)``.
    """
    from lawful.world import physics_more as pm

    label = 40
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    rb = float(rng.uniform(0.011, 0.014))
    rs = rb * float(rng.uniform(0.55, 0.8))
    big_left = bool(rng.integers(2))
    sgn = 1.0 if big_left else -1.0                    # from the big drop towards the small one
    gap = float(rng.uniform(0.008, 0.013))
    speed = float(rng.uniform(0.008, 0.012))           # closing speed (m/s)
    zc = float(rng.uniform(0.2, 0.26))
    rf, rf_anti = pm.merged_radius(rb, rs), math.hypot(rb, rs)
    sigma, rho = 0.065, 1190.0
    nu = float(rng.uniform(8e-5, 1.1e-4))              # m²/s, a glycerol-rich mix
    k = {"rb": rb, "rs": rs, "xc": 0.0, "sgn": sgn, "gap": gap, "rf": rf, "rf_anti": rf_anti,
         "t_contact": gap / speed, "t_merge": float(rng.uniform(0.35, 0.5)),
         "omega": pm.rayleigh_frequency(rf, sigma, rho), "tau": pm.shape_mode_decay(rf, nu),
         "eps0": float(rng.uniform(0.1, 0.16))}
    duration = round(k["t_contact"] + k["t_merge"] + 6 * k["tau"] + 0.6, 3)
    color = C.object_rgbs(rng, 1, avoid=C.scene_hues(st.look), value=(0.7, 0.85))[0]
    d0 = P.drop_state(0.0, k, "true")

    st.backdrop(y=float(rng.uniform(0.25, 0.4)))
    mat = K.glass(st, color, 1.0, specular=float(rng.uniform(0.15, 0.3)), emission=float(rng.uniform(0.25, 0.35)))
    bodies = (("big", "ellipsoid", d0["x_big"], ("a", "b", "b")), ("small", "sphere", d0["x_small"], ("r",)),
              ("neck", "capsule", d0["x_neck"], ("r", "l")))
    for name, kind, x, _ in bodies:
        b = K.slide_body(st, name, (x, 0.0, zc), axis=(1, 0, 0))
        shape = {"ellipsoid": 'type="ellipsoid" size="0.01 0.01 0.01"', "sphere": 'type="sphere" size="0.01"',
                 "capsule": 'type="capsule" size="0.001 0.001" euler="0 90 0"'}[kind]
        b.parts.append(f'<geom name="{name}_g" {shape} material="{mat}" contype="0" conaffinity="0"/>')
        st.objects.setdefault(name, []).append(f"{name}_g")
    sizes = []
    for name, _, _, comps in bodies:
        for c in dict.fromkeys(comps):
            P.parameter(st, f"{name}_{c}")
        sizes.append((f"{name}_g", tuple(f"{name}_{c}_j" for c in comps)))
    x_lo = min(d0["x_big"] - rb, d0["x_small"] - rs)
    x_hi = max(d0["x_big"] + rb, d0["x_small"] + rs)
    lo, hi = [x_lo - 0.012, zc - 1.5 * rf], [x_hi + 0.012, zc + 1.5 * rf]
    if variant.distractor:  # a bead of a like colour on a stand, off to one side
        st.distractor(E.sphere(0.5 * rs), pos=(x_hi + 0.03, 0.0, zc - rf), near=color)
        hi[0] = x_hi + 0.03 + 0.5 * rs + 0.005
    # a long lens from afar: beyond MuJoCo's near plane (1 % of the model's extent, which the parked parameter
    # bodies stretch to ~20 m) and a sphere's outline its true size to 0.1 %
    cam = C.frame_camera(st, rng, variant, lo, hi, max_tilt_deg=0.0, fovy=(4.0, 5.5))
    pos, right, up, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], zc]), right, up, fov)  # level with the drops
    cam["pos"][2] = round(zc, 4)
    world = P.Scaled.of(st, sizes=sizes)
    adr = {j: K.qadr(world, j) for _, joints in sizes for j in joints}
    adr.update({f"x_{n}": K.qadr(world, f"{n}_j") for n in ("big", "small", "neck")})
    x0 = {"big": d0["x_big"], "small": d0["x_small"], "neck": d0["x_neck"]}

    def qpos_of(law: str):
        def f(t):
            s = P.drop_state(t, k, law)
            q = np.zeros(world.model.nq)
            for n in ("big", "small", "neck"):
                q[adr[f"x_{n}"]] = s[f"x_{n}"] - x0[n]
            q[adr["big_a_j"]], q[adr["big_b_j"]] = s["a"], s["b"]
            q[adr["small_r_j"]] = s["r_small"]
            q[adr["neck_r_j"]], q[adr["neck_l_j"]] = s["neck_r"], s["neck_l"]
            return q
        return f

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    masks = world.masks(recs["true"])
    seen = world.object_spec("big", "sphere", first, masks)
    px = world.project
    ppm = world.px_per_m((0.0, 0.0, zc))
    xa, xb = sorted((px((x_lo - 0.006, 0, zc))[0], px((x_hi + 0.006, 0, zc))[0]))
    ya, yb = px((0, 0, zc + 1.45 * rf + 0.004))[1], px((0, 0, zc - 1.45 * rf - 0.004))[1]
    stage = [round(max(2.0, xa), 2), round(max(2.0, ya), 2), round(min(W - 3.0, xb), 2), round(min(H - 3.0, yb), 2)]
    r_px = {"big": rb * ppm, "small": rs * ppm, "final": rf * ppm, "anti_final": rf_anti * ppm}
    known = {"stage": stage, "color": list(seen.color), "r_px": r_px, "px_per_m": round(ppm, 3),
             "t_contact": k["t_contact"], "t_merge": k["t_merge"], "omega": k["omega"], "tau": k["tau"],
             "eps0": k["eps0"], "kinematic_viscosity": nu,
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: drift, volume-conserving merge, damped l = 2 shape mode"},
             "anti_note": "twin: the merged drop keeps the projected area (r_f = √(r1² + r2²)), not the volume"}
    case = E.studio_case(
        "wmle", "droplet_coalescence", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera, level with them, films two drops of a dyed water–glycerol mix floating weightless "
                "side by side in the air of an orbiting station, a large one and a smaller one about "
                f"{rs / rb:.1f} times its width. They drift slowly towards each other, touch, join through a "
                "widening neck and wobble before settling into one round drop. The camera does not move."),
        assumptions=["incompressible liquid, no evaporation or splashing", "free drops (weightless, no support)",
                     "fixed camera, one image scale"],
        criteria=["P40: M1/M2 of WMLE appendix B.9"],
        quantities={"r1": r_px["big"], "r2": r_px["small"], "r_final": r_px["final"], "e1": 0.0, "e2": 0.0,
                    "anti_e1": rf_anti**3 / (rb**3 + rs**3) - 1.0})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P39


@scene("wmle", "double_bubble")
def double_bubble(index: int, seed: int) -> StyledCase:
    """P39: two joined soap bubbles of unequal size floating in front of a dark, softly mottled cloth.

    Geometry: the standard double bubble (:func:`lawful.world.flows.double_bubble`: films meeting at 120°, the
    partition's radius ``r_s r_l / (r_l − r_s)`` from the Laplace pressures). Each film is drawn where a camera sees
    a soap film brightest, edge-on: its great circle in the plane of the centres, which faces the camera (a chain of
    thin glossy capsules in thin-film colours), with a window's reflection on each bubble. Motion: **kinematic**, a
    gentle drift of the pair (a few pixels). Twin: the partition straight (even seeds) or bulging into the small
    bubble (odd seeds), the outer films unchanged.
    """
    from lawful.world.scenes.bubbles import film_regions
    from lawful.world import flows

    label = 39
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    lk = st.look
    dim = float(rng.uniform(0.16, 0.28))               # a dark cloth: the look's colours darkened and softened
    mid = 0.5 * (np.asarray(lk.wall[0]) + np.asarray(lk.wall[1]))
    lk.wall = tuple(tuple(float(v) for v in dim * (mid + 0.3 * (np.asarray(c) - mid))) for c in lk.wall)
    kind = str(rng.choice(["gradient", "noise", "flat"]))  # no hard edges: a film is read as the brighter pixels
    r_s = float(rng.uniform(0.03, 0.04))
    r_l = r_s * float(rng.uniform(1.35, 1.8))
    g = flows.double_bubble(r_s, r_l)
    phi = math.radians(float(rng.uniform(-30.0, 30.0))) + (math.pi if rng.integers(2) else 0.0)  # image angle
    u = np.array([math.cos(phi), -math.sin(phi)])       # small → large in the world x–z plane (image y is down)
    zc = float(rng.uniform(0.3, 0.36))
    span = r_s + g["d"] + r_l
    cs = np.array([0.0, zc]) - u * (span / 2 - r_s)
    cl = cs + u * g["d"]
    twin = "straight" if seed % 2 == 0 else "reversed"
    bob_px, bob_s = float(rng.uniform(1.5, 3.0)), float(rng.uniform(1.8, 2.6))
    phase = float(rng.uniform(0, 2 * math.pi))
    duration = 3.0

    st.backdrop(y=float(rng.uniform(0.25, 0.4)), kind=kind)
    ext = np.array([[cs[0] - r_s, cs[1] - r_s], [cs[0] + r_s, cs[1] + r_s], [cl[0] - r_l, cl[1] - r_l],
                    [cl[0] + r_l, cl[1] + r_l]])
    pad = 0.25 * r_s
    cam = C.frame_camera(st, rng, variant, ext.min(0) - pad, ext.max(0) + pad, max_tilt_deg=0.0, fovy=(18.0, 26.0))
    ppm = st.height / 2 / math.tan(math.radians(cam["fovy_deg"]) / 2) / cam["distance_m"]
    thick = 1.1 / ppm                                   # a film edge-on: ~2.2 px wide, as the flat style draws it
    hues = flows.iridescent(np.linspace(0, 2 * math.pi, 24, endpoint=False), 0.0)
    mats = [K.glass(st, tuple(np.clip(c, 0, 255)), 1.0, specular=0.7, emission=0.45) for c in hues]
    pair = st.body("pair", pos=(0.0, 0.0, 0.0), joint="free")
    a_s = math.atan2(g["y_j"], g["x_j"])                # junction angles about each centre (axis frame)
    a_l = math.atan2(g["y_j"], g["x_j"] - g["d"])
    th = math.atan2(u[1], u[0])                         # the axis's world angle
    P.film_arc(pair, mats, cs, r_s, th + a_s, th + 2 * math.pi - a_s, thick, phase)
    P.film_arc(pair, mats, cl, r_l, th - a_l, th + a_l, thick, phase + 1.3)
    pair.parts.append('<inertial pos="0 0 0" mass="1e-3" diaginertia="1e-9 1e-9 1e-9"/>')
    v = np.array([-u[1], u[0]])
    j1, j2 = cs + u * g["x_j"] - v * g["y_j"], cs + u * g["x_j"] + v * g["y_j"]
    parts = {}
    for law in ("true", "anti"):
        b = st.body(f"partition_{law}", pos=(0.0, 0.0, 0.0), joint="free")
        b.parts.append('<inertial pos="0 0 0" mass="1e-3" diaginertia="1e-9 1e-9 1e-9"/>')
        if law == "anti" and twin == "straight":
            P.film_segment(b, mats[int(rng.integers(len(mats)))], j1, j2, thick)
        else:
            x_c = g["x_p"] if law == "true" else 2 * g["x_j"] - g["x_p"]
            c = cs + u * x_c
            a = math.atan2(g["y_j"], g["x_j"] - x_c)     # the junctions seen from the partition's centre
            base = th if law == "true" else th + math.pi
            P.film_arc(b, mats, c, g["r_p"], base - abs(a) if law == "true" else base - (math.pi - abs(a)),
                 base + abs(a) if law == "true" else base + (math.pi - abs(a)), thick, phase + 2.6)
        parts[law] = b
    glint = K.emissive(st, (235, 238, 245), 0.9)
    for c, r, sgn in ((cs, r_s, -1.0), (cl, r_l, 1.0)):  # window glints on the far side from the partition
        d = sgn * u * math.cos(math.radians(40)) + np.array([0.0, 1.0]) * math.sin(math.radians(40))
        p = c + 0.5 * r * d / np.linalg.norm(d)
        pair.parts.append(f'<geom type="ellipsoid" size="{0.07 * r:.5g} 0.0005 {0.045 * r:.5g}" '
                          f'pos="{p[0]:.6g} -0.001 {p[1]:.6g}" material="{glint}" contype="0" conaffinity="0"/>')
    world = st.build()
    qa = {n: int(world.model.jnt_qposadr[world.model.body_jntadr[world.id("body", n)]])
          for n in ("pair", "partition_true", "partition_anti")}

    def qpos_of(law: str):
        def f(t):
            w = 2 * math.pi * t / bob_s
            off = bob_px / ppm * np.array([math.sin(w), 0.0, -0.7 * math.cos(1.3 * w)])
            q = np.zeros(world.model.nq)
            for n, a in qa.items():
                shown = n == "pair" or n == f"partition_{law}"
                q[a:a + 3] = off if shown else (0.0, 0.0, P.PARK)
                q[a + 3] = 1.0
            return q
        return f

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    px = world.project
    cs_px, cl_px = (np.array(px((c[0], 0.0, c[1]))) for c in (cs, cl))
    phi_img = math.atan2(cl_px[1] - cs_px[1], cl_px[0] - cs_px[0])
    films = film_regions(cs_px, r_s * ppm, r_l * ppm, phi_img)
    films = {f: [[round(float(a), 2), round(float(b), 2)] for a, b in poly] for f, poly in films.items()}
    known = {"films": films, "centres": {"small": [round(float(v), 3) for v in cs_px],
                                         "large": [round(float(v), 3) for v in cl_px]},
             "r_small": r_s * ppm, "r_large": r_l * ppm, "r_partition": g["r_p"] * ppm, "r_small_m": r_s,
             "r_large_m": r_l, "axis_rad": phi_img, "bob_px": bob_px, "twin": twin,
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: the double bubble's equilibrium films, drifting gently"},
             "anti_note": f"twin: the partition is {'straight' if twin == 'straight' else 'bulging into the smaller bubble'}"}
    case = E.studio_case(
        "wmle", "double_bubble", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("Close-up of two soap bubbles stuck together, floating in still air in front of a dark cloth: one is "
                f"about {r_l / r_s:.1f} times as wide as the other. Their thin films catch the light as bright, "
                "rainbow-tinted outlines, with a small reflection of a window on each, and a single film separates "
                "the two bubbles where they join. The pair drifts very gently and nothing pops; the camera holds "
                "still."),
        assumptions=["one soap solution, equal surface tension in every film", "bubbles at rest in still air "
                     "(no flow, negligible gravity at this size)", "the films seen in the plane of the centres"],
        criteria=["P39: M1 of WMLE appendix B.9"],
        quantities={"r_small": r_s * ppm, "r_large": r_l * ppm, "r_partition": g["r_p"] * ppm, "e1": 0.0,
                    "anti_e1": math.inf if twin == "straight" else 2.0})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)
