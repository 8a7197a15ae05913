"""Studio scenes of the WMLE granular and damping tasks P34–P35, drawn in 3-D by MuJoCo (see each builder's
docstring for what is simulated and what is driven by the law's closed form)."""

from __future__ import annotations

import math

import numpy as np

from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import _wmle_p24_p40 as P
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0


# ----------------------------------------------------------------------------- P35


@scene("wmle", "sand_pile_angles")
def sand_pile_angles(index: int, seed: int) -> StyledCase:
    """P35: a small and a large conical pile of one dry sand on a dark floor board, each fed by a thin stream.

    Motion: **kinematic**, the task's growth law (fed at a constant rate a cone's volume ∝ h³ grows linearly:
    ``h = h_end ((t + t0) / (T + t0))^{1/3}``): each pile is a cone mesh at its angle of repose scaled about its
    base centre (:class:`~._wmle_p24_p40.Scaled`), so its angle never changes. The camera is level with the middle
    of the piles, so their flanks are seen at their true angle. Twin: the small pile stands 9–14° steeper.
    """
    from lawful.world.matter import SAND
    from lawful.world.scenes.granular import PILES as IDS

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
    from lawful.world.scenes.pendulums import N_SLOTS
    from lawful.world.scenes.pendulums import PLATES as IDS

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
