"""Studio scenes of the WMLE electromagnetism tasks P30 and P33 (P31, P32: :mod:`.scenes_wmle_p31_p32`), drawn in 3-D by MuJoCo (kit: :func:`~._wmle_p16_p33.coil`).

- P30 ``coil_indicator``: a bar magnet (one half painted, one white) on a rail through a horizontal copper coil
  wired to a box with a green and a red lamp. Motion: **kinematic**, a smooth push along the rail (the task's
  :func:`~lawful.world.scenes.electro.magnet_x` form in metres); the lamps follow Faraday's law: the
  flux of the magnet (a point dipole at its centre) through the coil's turns, ``Φ ∝ Σ a² / (a² + (x − x_i)²)^{3/2}``,
  drives a current ``∝ −dΦ/dt``; the green lamp glows for one sign (entry), the red one for the other (exit), each
  from a quarter of the clip's peak current, full at 60 %. Twin: no current at entry (the green lamp stays dark).
- P33 ``jumping_rings``: two matched upright coils with iron rods; a closed ring and a split ring (a gap cut
  through it, turned towards the camera) rest on the coils. Motion: **MuJoCo**: each ring on a vertical slide
  joint limited at its seat, under gravity; switching on gives the closed ring a 30 ms force pulse whose impulse
  sets its rise (1.4–2.6 diameters), the split ring one for 0–2 % of its diameter (no loop current). Twin: the
  split ring gets the closed ring's kick (``anti_rise_factor`` 0.92–1.05 of its rise).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import pad_box
from lawful.world.em import COPPER
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import _wmle_p24_p40 as P
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0


def _hues_clear_of_copper() -> tuple[float, ...]:
    import colorsys

    cu = colorsys.rgb_to_hsv(*(c / 255 for c in COPPER))[0]
    return tuple(x for x in C.PALETTE_HUES if min(abs(x - cu), 1 - abs(x - cu)) > 0.12)


def _mask_box(mask: np.ndarray) -> list[float]:
    ys, xs = np.nonzero(mask)
    return [round(float(xs.min()) - 0.5, 2), round(float(ys.min()) - 0.5, 2),
            round(float(xs.max()) + 0.5, 2), round(float(ys.max()) + 0.5, 2)]


# ----------------------------------------------------------------------------- P30


def coil_current(x: np.ndarray, t: np.ndarray, turns_x: np.ndarray, a: float) -> np.ndarray:
    """Induced current (arbitrary units, ``−dΦ/dt``) of a point dipole at ``x(t)`` on the axis of loops of radius
    ``a`` at ``turns_x``."""
    phi = (a * a / (a * a + (x[:, None] - turns_x[None, :]) ** 2) ** 1.5).sum(1)
    return -np.gradient(phi, t)


@scene("wmle", "coil_indicator")
def coil_indicator(index: int, seed: int) -> StyledCase:
    from lawful.world.scenes.electro import LAMP_COLORS, LAMPS

    label = 30
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    mw, mh = float(rng.uniform(0.07, 0.09)), float(rng.uniform(0.018, 0.022))
    Lc = float(rng.uniform(0.15, 0.19))
    R = 0.75 * mh + 0.006
    turns = int(rng.integers(12, 18))
    z_r = float(rng.uniform(0.05, 0.07))  # the rail's top
    z_ax = z_r + 0.5 * mh
    cx0 = -0.5 * Lc + float(rng.uniform(-0.02, 0.02))
    x_start = cx0 - 0.5 * mw - float(rng.uniform(0.06, 0.09))
    x_stop = cx0 + Lc + 0.5 * mw + float(rng.uniform(0.05, 0.08))
    t_go, travel = float(rng.uniform(0.4, 0.7)), float(rng.uniform(2.6, 3.0))
    north_leads = bool(rng.integers(2))
    duration = 4.0
    (c_mag,) = C.object_rgbs(rng, 1, avoid=C.scene_hues(st.look), hues=_hues_clear_of_copper())
    white = tuple(int(v) for v in rng.uniform(222, 240, 3))
    z_ind = z_ax + R + float(rng.uniform(0.08, 0.11))
    x_ind = cx0 + 0.5 * Lc + float(rng.uniform(-0.03, 0.03))
    r_l = float(rng.uniform(0.008, 0.01))

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.5)))
    steel = tuple(int(v) for v in rng.uniform(110, 140, 3))
    st.fixed(E.box(0.5 * (x_stop - x_start) + 0.08, 0.006, 0.002), (0.5 * (x_start + x_stop), 0, z_r - 0.002), steel,
             0.6, **E.NO_CONTACT)
    for x in (x_start - 0.05, x_stop + 0.05):  # the rail's feet
        st.fixed(E.box(0.006, 0.006, 0.5 * (z_r - 0.004)), (x, 0, 0.5 * (z_r - 0.004)), steel, 0.5, **E.NO_CONTACT)
    K.coil(st, (cx0 + 0.5 * Lc, 0, z_ax), "x", Lc, R, turns, COPPER, obj="coil")
    for x in (cx0 + 0.02, cx0 + Lc - 0.02):  # the coil's stands
        st.fixed(E.box(0.004, 0.5 * R, 0.5 * (z_ax - R)), (x, 0, 0.5 * (z_ax - R)), (70, 72, 78), 0.3, **E.NO_CONTACT)
    box = tuple(int(v) for v in rng.uniform(55, 85, 3))
    st.fixed(E.box(0.045, 0.012, 0.02), (x_ind, 0.01, z_ind), box, 0.3, **E.NO_CONTACT)
    lead = K.glass(st, (150, 90, 50), 1.0, specular=0.3)
    for xa, xb in ((cx0 + 0.01, x_ind - 0.03), (cx0 + Lc - 0.01, x_ind + 0.03)):
        st.static.append(f'<geom type="capsule" size="0.0015" fromto="{xa:.5g} 0.004 {z_ax + R:.5g} {xb:.5g} 0.004 '
                         f'{z_ind - 0.02:.5g}" material="{lead}" contype="0" conaffinity="0"/>')
    lamp_xy = {"entry": x_ind - 0.022, "exit": x_ind + 0.022}
    tints = []
    for n in LAMPS:
        on = np.asarray(LAMP_COLORS[n], float) / 255
        mat = K.glass(st, tuple(0.25 * on * 255), 1.0, specular=0.5, emission=0.9)
        st.static.append(f'<geom type="sphere" size="{r_l:.4g}" pos="{lamp_xy[n]:.5g} -0.004 {z_ind:.5g}" '
                         f'material="{mat}" contype="0" conaffinity="0"/>')
        P.parameter(st, f"lamp_{n}")
        tints.append((mat, f"lamp_{n}_j", (*(0.22 * on), 1.0), (*np.minimum(1.15 * on + 0.1, 1.0), 1.0)))
    sgn = 1.0 if north_leads else -1.0
    b = st.body("magnet", pos=(0, 0, z_ax), joint=E.Joint("slide", axis=(1, 0, 0), name="magnet_j"))
    b.geom(E.box(0.25 * mw, 0.5 * mh, 0.5 * mh), rgb=c_mag, obj="magnet", pos=(sgn * 0.25 * mw, 0, 0), specular=0.5,
           **E.NO_CONTACT)
    b.geom(E.box(0.25 * mw, 0.5 * mh, 0.5 * mh), rgb=white, pos=(-sgn * 0.25 * mw, 0, 0), specular=0.5, **E.NO_CONTACT)
    cam = C.frame_camera(st, rng, variant, (x_start - 0.5 * mw - 0.03, z_r - 0.03),
                         (x_stop + 0.5 * mw + 0.03, z_ind + 0.04))
    world = K.near_clip(P.Scaled.of(st, tints=tints))

    def x_of(t):
        u = np.clip((np.asarray(t, float) - t_go) / travel, 0.0, 1.0)
        return x_start + (x_stop - x_start) * u**3 * (10 - 15 * u + 6 * u * u)

    tf = np.linspace(0, duration, 4001)
    cur = coil_current(x_of(tf), tf, cx0 + (np.arange(turns) + 0.5) * Lc / turns, R)
    peak = float(np.abs(cur).max())
    glow = {"entry": np.clip((-cur - 0.25 * peak) / (0.35 * peak), 0, 1),  # entering, the flux rises: −dΦ/dt < 0
            "exit": np.clip((cur - 0.25 * peak) / (0.35 * peak), 0, 1)}
    qm, ql = K.qadr(world, "magnet_j"), {n: K.qadr(world, f"lamp_{n}_j") for n in LAMPS}

    def qpos_of(law: str):
        def g(t):
            q = np.zeros(world.model.nq)
            q[qm] = float(x_of(t))
            for n in LAMPS:
                q[ql[n]] = 0.0 if (law == "anti" and n == "entry") else float(np.interp(t, tf, glow[n]))
            return q
        return g

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    masks = world.masks(recs["true"])
    o = world.object_spec("magnet", "block", first, masks)
    o.box = pad_box(o.box)
    o.color = tuple(int(v) for v in np.median(first[masks["magnet"]], axis=0))
    coil_box = _mask_box(masks["coil"])
    lamps = {}
    for n in LAMPS:
        x, y = world.project((lamp_xy[n], -0.004 - r_l, z_ind))
        rp = 0.7 * r_l * world.px_per_m((lamp_xy[n], -0.004 - r_l, z_ind))
        lamps[n] = [round(x - rp, 2), round(y - rp, 2), round(x + rp, 2), round(y + rp, 2)]
    t = recs["true"].times[:, recs["true"].times.shape[1] // 2]
    lead_x = x_of(t) + 0.5 * mw
    entry = float(t[np.argmax(lead_x >= cx0)])
    known = {"coil": coil_box, "lamps": lamps, "north_leads": north_leads, "turns": turns,
             "t_go_s": round(t_go, 4), "travel_s": round(travel, 4),
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "kinematic push; lamps from -dPhi/dt of a dipole through the turns"},
             "anti_note": "twin: the entry lamp stays dark; only the exit lamp lights"}
    case = E.studio_case(
        "wmle", "coil_indicator", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[o],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera looks at a short horizontal coil of copper wire on a bench with a straight steel rail "
                "running through it. The coil's two ends are wired to a small dark box above it with a green and a "
                "red lamp, both dark at first. A bar magnet, one half painted and the other half white, rests on "
                "the rail to the left of the coil. After a moment it is pushed and slides along the rail through "
                "the coil, comes out on the other side and stops. Time runs at a steady rate."),
        assumptions=["a closed circuit of coil and indicator", "the lamps light for either current direction",
                     "fixed side view, uniform time"],
        criteria=["P30: M1 of WMLE appendix B.7"], quantities={"s1": 1.0, "anti_s1": 0.5})
    case.truth.events = {"entry": entry}

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P33

PULSE_S = 0.03  # the switching-on kick's duration (s)


def _ring(body: E.Body, r_out: float, h: float, rgb, obj: str, gap_deg: float = 0.0, gap_at: float = 0.0,
          n: int = 28) -> None:
    """A ring of ``n`` segments (outer radius ``r_out``, height ``h``); ``gap_deg`` > 0 leaves a cut centred at
    ``gap_at`` (radians from +x, counter-clockwise seen from above)."""
    t = 0.004
    rc = r_out - 0.5 * t
    seg = 2 * math.pi / n
    for i in range(n):
        a = (i + 0.5) * seg + gap_at
        if gap_deg > 0 and min(abs((a - gap_at + math.pi) % (2 * math.pi) - math.pi), 9) < math.radians(gap_deg) / 2 + 0.5 * seg:
            continue
        body.geom(E.box(0.5 * t, 0.5 * rc * seg * 1.02, 0.5 * h), rgb=rgb, obj=obj, specular=0.7,
                  pos=(rc * math.cos(a), rc * math.sin(a), 0.0), euler=(0, 0, math.degrees(a)), **E.NO_CONTACT)


@scene("wmle", "jumping_rings")
def jumping_rings(index: int, seed: int) -> StyledCase:
    from lawful.world.em import RINGS as IDS

    label = 33
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    Rc, hc = float(rng.uniform(0.035, 0.045)), float(rng.uniform(0.06, 0.08))
    rod_r, rod_len = float(rng.uniform(0.007, 0.01)), float(rng.uniform(0.2, 0.24))
    r_o, h_r = float(rng.uniform(0.021, 0.026)), float(rng.uniform(0.009, 0.013))
    sep = float(rng.uniform(0.2, 0.26))
    closed_left = bool(rng.integers(2))
    xs = dict(zip(IDS if closed_left else IDS[::-1], (-0.5 * sep, 0.5 * sep)))
    rise = min(float(rng.uniform(1.4, 2.6)) * 2 * r_o, rod_len - h_r - 0.012)
    split_share = float(rng.uniform(0.0, 0.02))
    anti_f = float(rng.uniform(0.92, 1.05))
    t_on = float(rng.uniform(0.4, 0.8))
    gap_deg = float(rng.uniform(12, 18))
    gap_at = -math.pi / 2 + math.radians(float(rng.uniform(-25, 25)))  # towards the camera (−y)
    duration = 2.5
    c_closed, c_split = C.object_rgbs(rng, 2, avoid=C.scene_hues(st.look), hues=_hues_clear_of_copper())
    turns = int(rng.integers(9, 15))

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.5)))
    iron = tuple(int(v) for v in rng.uniform(70, 95, 3))
    z_seat = hc + 0.5 * h_r
    for sd, x in xs.items():
        K.coil(st, (x, 0, 0.5 * hc), "z", hc, Rc, turns, COPPER)
        st.fixed(E.cylinder(rod_r, 0.5 * (hc + rod_len)), (x, 0, 0.5 * (hc + rod_len)), iron, 0.5, **E.NO_CONTACT)
        b = st.body(sd, pos=(x, 0, z_seat))
        b.parts.append(f'<joint name="{sd}_j" type="slide" axis="0 0 1" limited="true" range="0 {rod_len:.4g}" '
                       'damping="0" armature="0"/>')
        _ring(b, r_o, h_r, c_closed if sd == "closed" else c_split, sd, gap_deg if sd == "split" else 0.0, gap_at)
    cam = C.frame_camera(st, rng, variant, (-0.5 * sep - Rc - 0.04, -0.01), (0.5 * sep + Rc + 0.04, hc + rod_len + 0.02))
    world = st.build()
    mass = {sd: float(world.model.body_mass[world.id("body", sd)]) for sd in IDS}
    dof = {sd: int(world.model.jnt_dofadr[world.model.joint(f"{sd}_j").id]) for sd in IDS}

    def hook_of(law: str):
        h = {"closed": rise, "split": anti_f * rise if law == "anti" else split_share * 2 * r_o}
        push = {sd: mass[sd] * (math.sqrt(2 * E.G * h[sd]) / PULSE_S + E.G) for sd in IDS}

        def hook(w, d):
            on = t_on <= d.time < t_on + PULSE_S
            for sd in IDS:
                d.qfrc_applied[dof[sd]] = push[sd] if on and h[sd] > 0 else 0.0
        return hook

    recs = {"true": world.simulate(duration, FPS, hook=hook_of("true"))}
    first = next(iter(world.render(recs["true"])))
    masks = world.masks(recs["true"])
    objects = []
    ppm = world.px_per_m((0, -r_o, z_seat))
    for sd in IDS:
        o = world.object_spec(sd, "block" if sd == "closed" else "other", first, masks,
                              diameter_px=round(2 * r_o * world.px_per_m((xs[sd], -r_o, z_seat)), 3))
        o.box = pad_box(o.box)
        objects.append(o)
    t = recs["true"].times[:, recs["true"].times.shape[1] // 2]
    tracks = {}
    for sd in IDS:
        z = recs["true"].body_xyz(world, sd)[:, 2]
        tracks[sd] = [(round(float(a), 5), *(round(v, 3) for v in world.project((xs[sd], 0, zz)))) for a, zz in zip(t, z)]
    peak = {sd: float(recs["true"].body_xyz(world, sd)[:, 2].max() - z_seat) for sd in IDS}
    known = {"rise_px": round(rise * ppm, 3), "split_share": round(split_share, 4), "t_on_s": round(t_on, 4),
             "anti_rise_factor": round(anti_f, 4), "colors": {o.id: list(o.color) for o in objects},
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "MuJoCo: rings on limited vertical slides under gravity, a 30 ms kick at switch-on"},
             "anti_note": "twin: the split ring rises anti_rise_factor times the closed ring's rise"}
    where = ("left", "right") if closed_left else ("right", "left")
    case = E.studio_case(
        "wmle", "jumping_rings", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=objects,
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera looks at two identical upright coils of copper wire standing side by side on a "
                "bench, each with an iron rod rising vertically out of its middle. A metal ring lies around each rod, "
                f"resting on top of its coil: on the {where[0]} coil a closed ring, on the {where[1]} coil an "
                "identical ring with a narrow cut through it. The rings are free to slide along the rods. A moment "
                "after the start the same alternating current is switched on in both coils at once. Time runs at "
                "a steady rate."),
        assumptions=["matched coils and cores, switched on together", "rings of the same size and metal",
                     "the rings slide freely on the rods", "fixed side view, uniform time"],
        criteria=["P33: M1 of WMLE appendix B.7"], quantities={"r_h": peak["split"] / peak["closed"]})
    case.truth.tracks = tracks

    def render(law: str):
        if law not in recs:
            recs[law] = world.simulate(duration, FPS, hook=hook_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)

