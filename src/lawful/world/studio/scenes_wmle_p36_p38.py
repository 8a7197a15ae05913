"""Studio scenes of the WMLE fluid tasks P36 and P38, drawn in 3-D by MuJoCo.

- P38 ``viscous_settling``: two glass beads of one material (radii ratio 1.3–1.6) in a tall glass tank of
  translucent amber glycerin. Motion: **simulated** — MuJoCo integrates each free bead under gravity, its
  buoyancy ``ρ_f V g`` and a linear Stokes drag ``6 π μ r v`` (:func:`~._wmle_p24_p40.fluid_drag`), from rest
  when a hook lets them go, until they land on the tank's floor. Twin: the small bead's drag coefficient is
  scaled so that its terminal speed is ``v_large · r_small / r_large`` (speed ∝ r, not r²).
- P36 ``funnel_discharge``: see :func:`funnel_discharge`.

P34 and P35 are in :mod:`~lawful.world.studio.scenes_wmle_p34_p35`.
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
    from lawful.world.scenes.granular import BETA_LAW, INSET, MATERIALS

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

    # The camera sees an off-level surface's near rim (from below) or far rim (from above), not its centre: the level
    # reads high by |Δz| r / D (Δz the surface's height over the camera, r its radius, D the distance), ~0.5 px at
    # 3 m, and a drain curve's fitted β moves by ~0.02 per 0.1 px of such a height-dependent error. A long lens
    # from afar (D ≈ 8 m) and a camera height that balances |Δz| r at the start and end of the drain (the
    # rims' offsets ∝ |Δz| h) keep it under ~0.1 px.
    h_end = 0.5 * (ends["water"] + ends["sand"]) * h0
    z_mid = z_a + (h0**2 + h_end**2) / (h0 + h_end)
    lo = [-sep - R - 0.05, min(z_tray - 0.01, 2 * z_mid - (z_a + Hc + 0.04))]
    hi = [sep + R + 0.05, max(z_a + Hc + 0.04, 2 * z_mid - lo[1])]
    lo[1] = 2 * z_mid - hi[1]
    cam = C.frame_camera(st, rng, variant, lo, hi, max_tilt_deg=0.0, fovy=(3.5, 5.0))
    pos, right, up, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z_mid]), right, up, fov)  # level with the balanced height
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
