"""Studio scenes of the WMLE granular and fluid tasks (P34–P40), drawn in 3-D by MuJoCo.

- P38 ``viscous_settling``: two glass beads of one material (radii ratio 1.3–1.6) in a tall glass tank of
  translucent amber glycerin. Motion: **simulated** — MuJoCo integrates each free bead under gravity, its
  buoyancy ``ρ_f V g`` and a linear Stokes drag ``6 π μ r v`` (:func:`~._wmle_p24_p40.fluid_drag`), from rest
  when a hook lets them go, until they land on the tank's floor. Twin: the small bead's drag coefficient is
  scaled so that its terminal speed is ``v_large · r_small / r_large`` (speed ∝ r, not r²).
- P36 ``funnel_discharge``: see :func:`funnel_discharge`.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.world import flows
from lawful.world import liquids as lq
from lawful.world import physics_more as pm
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import _wmle_p24_p40 as P
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0
WOOD = (150, 108, 66)
GLYCERIN = (196, 140, 52)


# ----------------------------------------------------------------------------- P38


@scene("wmle", "viscous_settling")
def viscous_settling(index: int, seed: int) -> StyledCase:
    label = 38
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    r_s = float(rng.uniform(0.007, 0.009))
    ratio = float(rng.uniform(1.3, 1.6))
    r_l = ratio * r_s
    rho_s, rho_f = float(rng.uniform(2400.0, 2600.0)), 1260.0
    v_l = float(rng.uniform(0.075, 0.095))                       # the large bead's terminal speed (m/s)
    mu = 2 * (rho_s - rho_f) * E.G * r_l**2 / (9 * v_l)
    depth = float(rng.uniform(0.2, 0.24))                        # liquid column
    half_w, half_d, wall = float(rng.uniform(0.09, 0.11)), 0.045, 0.004
    z_f = 0.02                                                   # the tank's floor (inside)
    z_liq = z_f + depth
    gap = float(rng.uniform(0.045, 0.06))
    large_left = bool(rng.integers(2))
    x_of = {"large": -gap if large_left else gap, "small": gap if large_left else -gap}
    r_of = {"large": r_l, "small": r_s}
    z0 = z_liq - 0.03 - r_l
    hold = float(rng.uniform(0.3, 0.5))
    t_large = (z0 - z_f - r_l) / v_l
    duration = round(hold + t_large + 0.8, 3)
    color = C.object_rgbs(rng, 1, avoid=C.scene_hues(st.look) + [0.1, 0.12, 0.14], value=(0.8, 0.92),
                          hues=(0.33, 0.47, 0.58, 0.72, 0.86))[0]

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.5)))
    P.board(st, rng, -half_w - 0.05, half_w + 0.05, 0.0, z_liq + 0.08, y=half_d + 0.03)
    st.fixed(E.box(half_w + wall, half_d + wall, 0.5 * z_f), (0, 0, 0.5 * z_f), tuple(rng.uniform(60, 90, 3)), 0.4)
    gmat = K.glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.08, 0.14)))
    st.static.append(f'<geom name="tank" type="box" size="{half_w + wall:.5g} {half_d + wall:.5g} '
                     f'{0.5 * (z_liq + 0.04 - z_f):.5g}" pos="0 0 {0.5 * (z_liq + 0.04 + z_f):.5g}" '
                     f'material="{gmat}" contype="0" conaffinity="0"/>')
    tint = tuple(int(v) for v in np.clip(np.asarray(GLYCERIN) + rng.uniform(-12, 12, 3), 0, 255))
    lmat = K.glass(st, tint, float(rng.uniform(0.22, 0.3)), specular=0.5)
    st.static.append(f'<geom name="glycerin" type="box" size="{half_w:.5g} {half_d:.5g} {0.5 * depth:.5g}" '
                     f'pos="0 0 {z_f + 0.5 * depth:.5g}" material="{lmat}" contype="0" conaffinity="0"/>')
    st.fixed(E.box(half_w, half_d, 0.002), (0, 0, z_f - 0.002), tuple(rng.uniform(70, 100, 3)), 0.3)  # tank floor
    drags = {}
    for oid in ("large", "small"):
        b = st.body(oid, pos=(x_of[oid], 0.0, z0), joint="free")
        b.geom(E.sphere(r_of[oid]), rgb=color, obj=oid, specular=0.8, density=rho_s, priority=1,
               solref=E.restitution_solref(0.05))
        drags[oid] = (6 * math.pi * mu * r_of[oid], 4 / 3 * math.pi * r_of[oid] ** 3)
    if variant.distractor:
        st.distractor(E.sphere(0.8 * r_s), pos=(half_w + 0.06, -0.02, 0.8 * r_s), near=color)
    lo, hi = [-half_w - 0.03, 0.0], [half_w + 0.03, z_liq + 0.05]
    if variant.distractor:
        hi[0] = half_w + 0.09
    cam = C.frame_camera(st, rng, variant, lo, hi)
    world = st.build()

    def simulate(law: str) -> E.Recording:
        d = dict(drags)
        if law == "anti":  # small bead's terminal speed v_l·r_s/r_l = ratio × its own: drag ÷ ratio
            c, vol = d["small"]
            d["small"] = (c / ratio, vol)
        hook = E.chain(P.hold_free(world, ["large", "small"], hold), P.fluid_drag(world, d, rho_f))
        return world.simulate(duration, FPS, hook)

    recs = {"true": simulate("true")}
    first = next(iter(world.render(recs["true"])))
    masks = P.masks_through(world, recs["true"], ["tank", "glycerin"])
    rec = recs["true"]
    t = rec.times[:, rec.times.shape[1] // 2]
    objects, tracks, balls = [], {}, {}
    for oid in ("large", "small"):
        ppm = world.px_per_m((x_of[oid], 0, z0))
        r_px = r_of[oid] * ppm
        objects.append(world.object_spec(oid, "sphere", first, masks, radius_px=round(r_px, 4),
                                         radius_m=round(r_of[oid], 6)))
        xyz = rec.body_xyz(world, oid)
        tracks[oid] = [(round(float(a), 5), *(round(v, 3) for v in world.project(p))) for a, p in zip(t, xyz)]
        v = pm.stokes_speed(r_of[oid], rho_s, rho_f, mu, E.G)
        balls[oid] = {"x": round(world.project((x_of[oid], 0, z0))[0], 3), "r_px": round(r_px, 4),
                      "r_m": r_of[oid], "v_px": v * ppm, "tau_s": pm.stokes_relaxation(r_of[oid], rho_s, rho_f, mu)}
    balls["small"]["anti_v_px"] = balls["large"]["v_px"] / ratio
    balls["large"]["anti_v_px"] = balls["large"]["v_px"]
    objects.sort(key=lambda o: o.box[0])
    px = world.project
    tank = [round(px((-half_w, 0, z_liq))[0], 2), round(px((0, 0, z_liq + 0.04))[1], 2),
            round(px((half_w, 0, z_liq))[0], 2), round(px((0, 0, z_f))[1], 2)]
    known = {"g": E.G, "px_per_m": round(world.px_per_m((0, 0, z0)), 3), "rho_sphere": rho_s, "rho_fluid": rho_f,
             "viscosity_pa_s": mu, "tank": tank, "fill_y": round(px((0, 0, z_liq))[1], 2),
             "start_y": round(px((0, 0, z0))[1], 3), "hold_s": round(hold, 4), "balls": balls,
             "color": list(objects[0].color),
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "simulated: gravity, buoyancy and Stokes drag on free spheres"},
             "anti_note": "twin: the small bead sinks at v_large·r_small/r_large (speed ∝ r)"}
    case = E.studio_case(
        "wmle", "viscous_settling", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=objects,
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera looks at a tall glass tank of clear amber glycerin standing in front of a pale board. "
                f"Two solid glass beads of the same kind, one about {ratio:.1f} times wider than the other, are held "
                "side by side just below the surface and let go together. They sink slowly through the thick "
                "liquid, each soon reaching a steady speed, and the larger bead reaches the floor of the tank "
                "first. The camera does not move and time runs at a steady rate."),
        assumptions=["same material, densities ρ_s > ρ_f", "creeping flow (Reynolds number ≪ 1)",
                     "released together from rest", "walls far enough not to slow the beads",
                     "fixed side view, uniform time"],
        criteria=["P38: M1 of WMLE appendix B.9"],
        quantities={"v_small_px_s": balls["small"]["v_px"], "v_large_px_s": balls["large"]["v_px"],
                    "radius_ratio": ratio, "e1": 0.0, "anti_e1": 1.0 - 1.0 / ratio})
    case.truth.tracks = tracks

    def render(law: str):
        if law not in recs:
            recs[law] = simulate(law)
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P36


@scene("wmle", "funnel_discharge")
def funnel_discharge(index: int, seed: int) -> StyledCase:
    """P36: two identical glass cone funnels in a stand over a tray, one of dyed water and one of dry sand.

    Motion: **kinematic**, the task's closed forms (:func:`lawful.world.flows.drain_head`: a cone drained at
    ``Q ∝ h^β`` from ``h0``; water β = ½, Torricelli; sand β = 0, Beverloo): at every sub-frame the fill is a solid
    cone from the outlet up to that time's surface (a cone mesh scaled about the apex, :class:`~._wmle_p24_p40.Scaled`), with a
    thin stream from each outlet to the tray. The camera is level with the middle of the fills. Twin: the water
    drains at a constant volume rate like the sand (β_water = 0), ending at the same height.
    """
    from lawful.suites.wmle.p36_funnel_discharge import BETA_LAW, INSET, MATERIALS

    label = 36
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    tan_a = math.tan(math.radians(float(rng.uniform(27.0, 33.0))))
    Hc = float(rng.uniform(0.15, 0.18))               # apex (outlet) to rim
    stem = 0.035
    z_tray = 0.03
    z_a = z_tray + stem + float(rng.uniform(0.1, 0.14))
    R = Hc * tan_a
    sep = R + float(rng.uniform(0.03, 0.05))
    water_left = bool(rng.integers(2))
    xs = {"water": -sep if water_left else sep, "sand": sep if water_left else -sep}
    h0 = Hc * float(rng.uniform(0.72, 0.78))
    duration = 5.0
    ends = {m: float(rng.uniform(0.32, 0.45)) for m in MATERIALS}
    t_empty = {m: duration / (1.0 - ends[m] ** (3.0 - BETA_LAW[m])) for m in MATERIALS}
    anti_t_empty = duration / (1.0 - ends["water"] ** 3.0)
    tint = tuple(int(v) for v in np.clip(np.asarray(lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))])
                                         + rng.uniform(-12, 12, 3), 0, 255))
    sand = tuple(int(v) for v in np.clip(np.asarray(flows.SAND) + rng.uniform(-15, 15, 3), 0, 255))

    st.floor()
    st.backdrop(y=float(rng.uniform(0.45, 0.6)))
    # the board stands well back: the glass cones' shadows (MuJoCo's shadows ignore transparency) fall below the view
    P.board(st, rng, -sep - R - 0.2, sep + R + 0.2, 0.0, z_a + Hc + 0.15, y=0.3)
    st.fixed(E.box(sep + R + 0.04, 0.07, 0.5 * z_tray), (0, 0, 0.5 * z_tray), tuple(rng.uniform(60, 95, 3)), 0.3)
    metal = tuple(int(v) for v in rng.uniform(120, 160, 3))
    st.fixed(E.box(sep + R + 0.05, 0.006, 0.008), (0, 0.02, z_a - 0.5 * stem), metal, 0.8, **E.NO_CONTACT)  # stand bar
    gmat = K.glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.1, 0.16)))
    mats = {"water": K.glass(st, tint, 1.0, specular=0.6), "sand": st.material(sand, 0.05)}
    for m in MATERIALS:
        x = xs[m]
        apex = (x, 0.0, z_a)
        K.mesh(st, f"funnel_{m}", P.cone_shell(apex, tan_a, 0.004 / tan_a, Hc))
        st.static.append(f'<geom name="funnel_{m}" type="mesh" mesh="funnel_{m}" material="{gmat}" '
                         'contype="0" conaffinity="0"/>')
        st.static.append(f'<geom name="stem_{m}" type="cylinder" size="0.006 {0.5 * stem:.5g}" '
                         f'pos="{x:.5g} 0 {z_a - 0.5 * stem:.5g}" material="{gmat}" contype="0" conaffinity="0"/>')
        stream = E.capsule(0.0022 if m == "water" else 0.0028, (x, 0, z_a - stem), (x, 0, z_tray))
        st.static.append(f'<geom name="stream_{m}" {E._attrs(stream)} material="{mats[m]}" contype="0" '
                         'conaffinity="0"/>')
        K.mesh(st, f"fill_{m}", P.cone_fill(apex, 0.96 * tan_a, Hc))  # scaled about the apex to each time's height
        st.static.append(f'<geom name="fill_{m}" type="mesh" mesh="fill_{m}" material="{mats[m]}" '
                         'contype="0" conaffinity="0"/>')
        P.parameter(st, f"h_{m}")

    def head(m: str, law: str, t):
        beta, T = BETA_LAW[m], t_empty[m]
        if law == "anti" and m == "water":
            beta, T = 0.0, anti_t_empty
        return float(flows.drain_head(t, h0, T, beta))

    z_mid = z_a + 0.5 * (h0 + ends["water"] * h0)
    lo = [-sep - R - 0.05, min(z_tray - 0.01, 2 * z_mid - (z_a + Hc + 0.04))]
    hi = [sep + R + 0.05, max(z_a + Hc + 0.04, 2 * z_mid - lo[1])]
    lo[1] = 2 * z_mid - hi[1]
    # a long lens from afar: a surface off the camera's height is seen nearly edge-on (its front edge, which the
    # level reading finds, then lies within a fraction of a pixel of the cone's axis)
    cam = C.frame_camera(st, rng, variant, lo, hi, max_tilt_deg=0.0, fovy=(10.0, 14.0))
    pos, right, up, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z_mid]), right, up, fov)  # level with the middle of the fills
    cam["pos"][2] = round(z_mid, 4)
    world = P.Scaled.of(st, [(f"fill_{m}", (xs[m], 0.0, z_a), f"h_{m}_j", Hc) for m in MATERIALS])
    adr = {m: K.qadr(world, f"h_{m}_j") for m in MATERIALS}

    def qpos_of(law: str):
        def g(t):
            q = np.zeros(world.model.nq)
            for m in MATERIALS:
                q[adr[m]] = head(m, law, t)
            return q
        return g

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    funnels = {}
    for m in MATERIALS:
        x = xs[m]
        xa, ya = world.project((x, 0, z_a))
        xr, yr = world.project((x + R, 0, z_a + Hc))
        xc, _ = world.project((x, 0, z_a + Hc))
        tan_img = (xr - xc) / (ya - yr)
        y_low = ya - (4.0 + INSET / math.cos(math.atan(tan_img))) / tan_img - 4.0
        funnels[m] = {"apex": [round(xa, 3), round(ya, 3)], "rim_y": round(yr, 3), "tan_half_angle": round(tan_img, 5),
                      "region": [[round(a, 2), round(b, 2)] for a, b in flows.funnel_polygon(xa, ya, yr, tan_img,
                                                                                              INSET, y_low)],
                      "t_empty_s": t_empty[m]}
    ppm = world.px_per_m((0, 0, z_a))
    known = {"funnels": funnels, "ground_y": round(world.project((0, 0, z_tray))[1], 2), "h0_px": round(h0 * ppm, 3),
             "liquid": list(tint), "sand": list(sand), "anti_t_empty_s": anti_t_empty,
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: cone drain law h0 (1 - t/T)^(1/(3-beta)), the fill cone scaled about its apex"},
             "anti_note": "twin: the water drains at a constant volume rate like the sand (β_water = 0)"}
    case = E.studio_case(
        "wmle", "funnel_discharge", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera, level with them, looks at two identical clear glass cone funnels held side by side "
                f"in a stand over a tray, each with the same narrow outlet. The {'left' if water_left else 'right'} "
                "one is filled with dyed water and the other with dry sand, both to the same height. At the start "
                "both outlets are opened together; each funnel empties through its outlet in a thin stream and the "
                "filling surfaces sink. The camera stays still and nothing is added."),
        assumptions=["identical cones with their apex at the outlet, equal outlets and initial heights",
                     "water: inviscid outflow (Torricelli); sand: dry, free-flowing grains (Beverloo)",
                     "fixed side view, uniform time"],
        criteria=["P36: M1 of WMLE appendix B.8"],
        quantities={"beta_water": 0.5, "beta_sand": 0.0, "e1": 0.0, "anti_beta_water": 0.0, "anti_e1": 0.5})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P35


@scene("wmle", "sand_pile_angles")
def sand_pile_angles(index: int, seed: int) -> StyledCase:
    """P35: a small and a large conical pile of one dry sand on a dark floor board, each fed by a thin stream.

    Motion: **kinematic**, the task's growth law (fed at a constant rate a cone's volume ∝ h³ grows linearly:
    ``h = h_end ((t + t0) / (T + t0))^{1/3}``): each pile is a cone mesh at its angle of repose scaled about its
    base centre (:class:`~._wmle_p24_p40.Scaled`), so its angle never changes. The camera is level with the middle
    of the piles, so their flanks are seen at their true angle. Twin: the small pile stands 9–14° steeper.
    """
    from lawful.suites.wmle.p35_sand_pile_angles import IDS, SAND

    label = 35
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    alpha = float(rng.uniform(30.0, 36.0))
    steeper = float(rng.uniform(9.0, 14.0))
    ta = math.tan(math.radians(alpha))
    h_l = float(rng.uniform(0.12, 0.15))
    h_s = h_l * float(rng.uniform(0.55, 0.65))
    small_left = bool(rng.integers(2))
    R_l, R_s = h_l / ta, h_s / ta
    gap = float(rng.uniform(0.06, 0.09))
    x_s = -0.5 * (gap + R_l + R_s) - 0.5 * (R_s - R_l) if small_left else 0.5 * (gap + R_l + R_s) - 0.5 * (R_s - R_l)
    x_l = x_s + (R_s + gap + R_l) * (1 if small_left else -1)
    piles = {"small": (x_s, h_s), "large": (x_l, h_l)}
    duration = float(rng.uniform(3.5, 4.5))
    t0 = float(rng.uniform(0.6, 1.0)) * duration
    z_top = 1.7 * h_l                                   # the streams come out of spouts this high
    sand = tuple(int(v) for v in np.clip(np.asarray(SAND) + rng.uniform(-12, 12, 3), 0, 255))

    st.floor()
    st.backdrop(y=float(rng.uniform(0.4, 0.6)))
    x0, x1 = min(x_s - R_s, x_l - R_l) - 0.06, max(x_s + R_s, x_l + R_l) + 0.06
    dark = tuple(int(v) for v in rng.uniform(45, 80, 3))
    P.board(st, rng, x0, x1, 0.0, z_top + 0.03, y=R_l + 0.05)
    st.fixed(E.box(0.5 * (x1 - x0), R_l + 0.06, 0.004), (0.5 * (x0 + x1), 0, 0.004), dark, 0.1)  # the floor board
    smat = st.material(sand, 0.05)
    metal = tuple(int(v) for v in rng.uniform(120, 160, 3))
    for oid, (x, h) in piles.items():
        for law in ("true", "anti"):
            if law == "anti" and oid == "large":
                continue
            a = alpha + (steeper if law == "anti" else 0.0)
            r = h / math.tan(math.radians(a))
            ang = np.linspace(0, 2 * math.pi, 48, endpoint=False)
            ring = np.stack([x + r * np.cos(ang), r * np.sin(ang), np.full(48, 0.008)], 1)
            K.mesh(st, f"pile_{oid}_{law}", np.vstack([[x, 0.0, 0.008 + h], ring]))
            st.static.append(f'<geom name="pile_{oid}_{law}" type="mesh" mesh="pile_{oid}_{law}" material="{smat}" '
                             'contype="0" conaffinity="0"/>')
            P.parameter(st, f"h_{oid}_{law}")
        st.static.append(f'<geom name="stream_{oid}" {E._attrs(E.capsule(0.0016, (x, 0, 0.01), (x, 0, z_top)))} '
                         f'material="{smat}" contype="0" conaffinity="0"/>')
        st.fixed(E.cylinder(0.007, 0.02), (x, 0, z_top + 0.02), metal, 0.8, **E.NO_CONTACT)  # the spout
    z_mid = 0.5 * h_l
    lo, hi = [x0, -0.02], [x1, z_top + 0.05]
    lo[1] = min(lo[1], 2 * z_mid - hi[1])
    cam = C.frame_camera(st, rng, variant, lo, hi, max_tilt_deg=0.0)
    pos, right, up, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z_mid]), right, up, fov)  # level with the middle of the piles
    cam["pos"][2] = round(z_mid, 4)
    morphs = [(f"pile_{o}_{law}", (piles[o][0], 0.0, 0.008), f"h_{o}_{law}_j", piles[o][1])
              for o in IDS for law in ("true", "anti") if not (law == "anti" and o == "large")]
    world = P.Scaled.of(st, morphs)
    adr = {(o, law): K.qadr(world, f"h_{o}_{law}_j") for o, _, _, _ in [(m[0].split("_")[1], 0, 0, 0) for m in morphs]
           for law in ("true", "anti") if not (law == "anti" and o == "large")}

    def height(oid: str, t: float) -> float:
        return piles[oid][1] * ((t + t0) / (duration + t0)) ** (1.0 / 3.0)

    def qpos_of(law: str):
        def g(t):
            q = np.zeros(world.model.nq)
            q[adr[("large", "true")]] = height("large", t)
            q[adr[("small", law)]] = height("small", t)   # the other small pile stays at scale ~0 (unseen)
            return q
        return g

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    px = world.project
    floor_y = px((0, 0, 0.008))[1]
    known_piles = {}
    for oid, (x, h) in piles.items():
        room = h / ta if oid == "large" else h / ta  # the law pile is the wider one
        xa, ya = px((x - room - 0.012, 0, h))
        xb, _ = px((x + room + 0.012, 0, h))
        _, y_top = px((x, 0, h * 1.25))
        known_piles[oid] = {"x": round(px((x, 0, 0))[0], 3), "h_end": round(floor_y - px((x, 0, 0.008 + h))[1], 3),
                            "alpha_deg": alpha, "anti_alpha_deg": alpha + (steeper if oid == "small" else 0.0),
                            "region": [round(max(1.0, xa), 2), round(max(2.0, y_top), 2), round(min(W - 2.0, xb), 2),
                                       round(floor_y - 1.5, 2)]}
    pts = [px((piles["large"][0] + dx, -0.3 * piles["large"][1] / ta, 0.3 * piles["large"][1])) for dx in (-0.004, 0, 0.004)]
    known = {"floor_y": round(floor_y, 3), "piles": known_piles, "grow_t0_s": round(t0, 4),
             "sand_color": list(K.measured_rgb(first, pts)),
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic: cones at the repose angle scaled about their base centres, h ∝ (t + t0)^(1/3)"},
             "anti_note": "twin: the small pile's flanks are steeper by the difference of anti_alpha_deg"}
    case = E.studio_case(
        "wmle", "sand_pile_angles", index, seed, duration=round(duration, 3), fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera, level with them, looks at two piles of the same dry sand on a dark board, a small one "
                "and a large one. A thin stream of sand falls steadily from a spout onto the top of each pile, so both "
                "grow slowly; sand slides down their sides, which stay straight. The camera does not move and time "
                "runs at a steady rate."),
        assumptions=["the same dry, non-cohesive sand in both piles", "piles fed gently at their apexes",
                     "fixed side view, the floor level"],
        criteria=["P35: M1/M2 of WMLE appendix B.8"],
        quantities={"alpha_deg": alpha, "e1": 0.0, "e2": 0.0, "anti_e1": steeper / alpha})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P34


@scene("wmle", "plate_damping")
def plate_damping(index: int, seed: int) -> StyledCase:
    """P34: a solid and a comb-slotted plate of equal mass and inertia on rigid rods from one bar, each swinging
    through the gap of a magnet (two pole pieces, one in front of and one behind the plate's lowest position).

    Motion: **simulated** — MuJoCo integrates each plate as a rigid body on a hinge released from rest at the
    same angle; the eddy drag is the hinge's viscous damping ``c = 2 ζ I ω₀`` (``I`` and ``ω₀`` of the stated
    inertia: ζ 0.22–0.32 solid, 0.01–0.025 slotted). Twin: the slotted plate is damped as much as the solid one.
    """
    from lawful.suites.wmle.p34_plate_damping import IDS, N_SLOTS

    label = 34
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    L = float(rng.uniform(0.3, 0.4))                         # pivot to plate centre
    amp = float(rng.uniform(22.0, 30.0))
    side = int(rng.choice([-1, 1]))
    solid_left = bool(rng.integers(2))
    zeta = {"solid": float(rng.uniform(0.22, 0.32)), "slotted": float(rng.uniform(0.01, 0.025))}
    pw, ph, thick = float(rng.uniform(0.085, 0.1)), float(rng.uniform(0.065, 0.075)), 0.004
    mass = 0.25
    spacing = 2 * (L * math.sin(math.radians(amp)) + 0.5 * pw) + float(rng.uniform(0.06, 0.1))
    bar_z = L + 0.5 * ph + float(rng.uniform(0.12, 0.2))
    xs = {"solid": -0.5 * spacing if solid_left else 0.5 * spacing}
    xs["slotted"] = -xs["solid"]
    colors = dict(zip(IDS, C.object_rgbs(rng, 2, avoid=C.scene_hues(st.look))))
    duration = 5.0
    I = mass * L * L + mass * (pw * pw + ph * ph) / 12.0
    w0 = math.sqrt(mass * E.G * L / I)

    st.floor()
    st.backdrop(y=float(rng.uniform(0.25, 0.45)))
    metal = tuple(int(v) for v in rng.uniform(140, 175, 3))
    reach = L * math.sin(math.radians(amp)) + 0.5 * pw + 0.03
    x0, x1 = -0.5 * spacing - reach - 0.04, 0.5 * spacing + reach + 0.04  # posts clear of the swings
    st.fixed(E.box(0.5 * (x1 - x0), 0.014, 0.014), (0.5 * (x0 + x1), 0, bar_z + 0.014), metal, 0.9)
    for x in (x0, x1):
        st.fixed(E.cylinder(0.012, 0.5 * (bar_z + 0.028)), (x, 0, 0.5 * (bar_z + 0.028)), metal, 0.9)
    magnet = tuple(int(v) for v in rng.uniform(40, 70, 3))
    z_low = bar_z - L
    for oid in IDS:
        x = xs[oid]
        b = st.body(oid, pos=(x, 0, bar_z), joint=E.Joint("hinge", axis=(0, 1, 0), name=f"{oid}_hinge"))
        b.parts.append(f'<inertial pos="0 0 {-L:.6g}" mass="{mass}" diaginertia="{mass * (pw**2 + thick**2) / 12:.6g} '
                       f'{mass * (pw**2 + ph**2) / 12:.6g} {mass * (ph**2 + thick**2) / 12:.6g}"/>')
        b.geom(E.capsule(0.003, (0, 0, 0), (0, 0, -(L - 0.5 * ph))), rgb=metal, specular=0.8, **E.NO_CONTACT)
        if oid == "solid":
            b.geom(E.box(0.5 * pw, 0.5 * thick, 0.5 * ph), rgb=colors[oid], obj=oid, pos=(0, 0, -L), specular=0.6,
                   **E.NO_CONTACT)
        else:  # a band along the top and N_SLOTS + 1 teeth below it (slots cut up from the lower edge)
            band = 0.35 * ph
            b.geom(E.box(0.5 * pw, 0.5 * thick, 0.5 * band), rgb=colors[oid], obj=oid,
                   pos=(0, 0, -L + 0.5 * ph - 0.5 * band), specular=0.6, **E.NO_CONTACT)
            n_teeth = N_SLOTS + 1
            slot = 0.25 * pw / N_SLOTS
            tooth = (pw - N_SLOTS * slot) / n_teeth
            for j in range(n_teeth):
                cx = -0.5 * pw + 0.5 * tooth + j * (tooth + slot)
                b.geom(E.box(0.5 * tooth, 0.5 * thick, 0.5 * (ph - band)), rgb=colors[oid], obj=oid,
                       pos=(cx, 0, -L - 0.5 * band), specular=0.6, **E.NO_CONTACT)
        for yy in (-1, 1):  # pole pieces either side of the plate's lowest position, a yoke below
            st.fixed(E.cylinder(0.28 * ph, 0.012), (x, yy * (0.5 * thick + 0.018), z_low - 0.3 * ph), magnet, 0.5,
                     euler=(90, 0, 0), **E.NO_CONTACT)
        st.fixed(E.box(0.3 * ph, 0.03 + 0.5 * thick, 0.01), (x, 0, z_low - 0.58 * ph - 0.01), magnet, 0.5,
                 **E.NO_CONTACT)
    lo = [x0 - 0.03, z_low - 0.6 * ph - 0.05]
    hi = [x1 + 0.03, bar_z + 0.05]
    if variant.distractor:
        dx = max(xs.values()) + reach + 0.05
        st.distractor(E.box(0.02, 0.01, 0.015), pos=(dx, 0.05, 0.015), near=colors["solid"])
        hi[0] = dx + 0.05
    cam = C.frame_camera(st, rng, variant, lo, hi)
    world = st.build()
    dof = {oid: int(world.model.jnt_dofadr[world.model.joint(f"{oid}_hinge").id]) for oid in IDS}
    qa = {oid: K.qadr(world, f"{oid}_hinge") for oid in IDS}

    def simulate(law: str) -> E.Recording:
        z = dict(zeta) if law == "true" else {o: zeta["solid"] for o in IDS}
        for o in IDS:
            world.model.dof_damping[dof[o]] = 2 * z[o] * I * w0

        def init(d):
            for o in IDS:
                d.qpos[qa[o]] = -side * math.radians(amp)  # about +y: positive moves the plate to -x

        return world.simulate(duration, FPS, None, init)

    recs = {"true": simulate("true")}
    first = next(iter(world.render(recs["true"])))
    masks = world.masks(recs["true"])
    rec = recs["true"]
    t = rec.times[:, rec.times.shape[1] // 2]
    objects, tracks, pends = [], {}, []
    for o in IDS:
        q = rec.qpos[:, rec.qpos.shape[1] // 2, qa[o]]
        xyz = np.stack([xs[o] - L * np.sin(q), np.zeros_like(q), bar_z - L * np.cos(q)], -1)
        tracks[o] = [(round(float(a), 5), *(round(v, 3) for v in world.project(p))) for a, p in zip(t, xyz)]
        pxv, pyv = world.project((xs[o], 0, bar_z))
        L_px = L * world.px_per_m((xs[o], 0, bar_z - L))
        objects.append(world.object_spec(o, "other", first, masks, length_px=round(L_px, 3), amplitude_deg=amp,
                                         zeta=zeta[o]))
        pends.append({"id": o, "pivot_x": round(pxv, 3), "pivot_y": round(pyv, 3), "length_px": round(L_px, 3),
                      "amplitude_deg": amp, "side": side, "zeta": zeta[o], "anti_zeta": zeta["solid"],
                      "slots": N_SLOTS if o == "slotted" else 0})
    objects.sort(key=lambda ob: ob.box[0])
    known = {"g": E.G, "support_y": round(world.project((0, 0, bar_z))[1], 3), "pendulums": pends, "hold_s": 0.0,
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "simulated: hinged plates with viscous hinge damping 2ζIω0"},
             "anti_note": "twin: the slotted plate is damped as much as the solid one (anti_zeta)"}
    case = E.studio_case(
        "wmle", "plate_damping", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=objects,
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera looks at two flat metal plates hanging as pendulums on rigid rods from one bar. The "
                f"{'left' if solid_left else 'right'} plate is solid; the other has the same mass and outline but a "
                "row of narrow slots cut up from its lower edge, like a comb. At the bottom of each swing the plate "
                "passes between the poles of a strong magnet. Both plates are pulled aside to the same angle of "
                f"about {amp:.0f} degrees and let go together; they swing for a few seconds. The camera does not "
                "move and time runs at a steady rate."),
        assumptions=["matched mass, inertia and pivot distance", "same release angle, released together from rest",
                     "equivalent magnetic fields at the bottom of both swings", "fixed side view, uniform time"],
        criteria=["P34: M1 of WMLE appendix B.7"],
        quantities={"zeta_solid": zeta["solid"], "zeta_slotted": zeta["slotted"], "s1": 1.0})
    case.truth.tracks = tracks

    def render(law: str):
        if law not in recs:
            recs[law] = simulate(law)
        return world.render(recs[law])

    return StyledCase(case, first, render)
