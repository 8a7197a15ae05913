"""Studio scenes of the WMLE electrostatics and magnetism tasks P31 and P32, drawn in 3-D by MuJoCo (dynamics, not
closed forms: the forces of the laws act on hinged bodies).

- P31 ``charged_balls``: two equal balls on equal threads from one point of a bar. Motion: **MuJoCo**: each ball on
  a hinge at the pivot (damped), under gravity; from ``t_on`` a Coulomb repulsion ``κ/d²`` along the line between
  them (``κ`` for a symmetric rest at 15–25°) acts on both alike, so they swing apart and settle symmetrically.
  Twin: one ball feels only 30–50 % of the push (Newton's third law broken): the rest is lopsided.
- P32 ``compass_needles``: seen from above (a slight tilt), a copper wire standing up through a board between two
  compasses. Motion: **MuJoCo**: each needle on a damped vertical hinge turned by the torque ``−κ |B| sin(θ − θ_B)``
  of the local field, the Earth's until ``t_on``, then the Earth's plus the wire's (12–25 times stronger), which
  circles the wire: opposite ways on the two sides. Twin: the right needle feels the left one's wire field
  (no circulation), so both settle the same way.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import pad_box
from lawful.world.em import COPPER
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0


# ----------------------------------------------------------------------------- P31


@scene("wmle", "charged_balls")
def charged_balls(index: int, seed: int) -> StyledCase:
    from lawful.world.scenes.electro import BALLS as IDS

    label = 31
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    L, r = float(rng.uniform(0.2, 0.25)), float(rng.uniform(0.011, 0.014))
    th_eq = math.radians(float(rng.uniform(15.0, 25.0)))
    th0 = math.asin(1.08 * r / L)
    t_on = float(rng.uniform(0.2, 0.4))
    zeta = float(rng.uniform(0.2, 0.3))
    anti_ball, anti_f = IDS[int(rng.integers(2))], float(rng.uniform(0.3, 0.5))
    z_p = L + float(rng.uniform(0.08, 0.12))
    duration = 5.0
    colors = dict(zip(IDS, C.object_rgbs(rng, 2, avoid=C.scene_hues(st.look))))

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.5)))
    wood = tuple(int(v) for v in rng.uniform([120, 80, 50], [165, 120, 80]))
    st.fixed(E.box(0.12, 0.008, 0.007), (0, 0.006, z_p + 0.007), wood, 0.3, **E.NO_CONTACT)
    for x in (-0.12, 0.12):  # the bar's posts
        st.fixed(E.box(0.006, 0.006, 0.5 * z_p), (x, 0.006, 0.5 * z_p), wood, 0.3, **E.NO_CONTACT)
    thread = K.glass(st, (225, 225, 215), 1.0, specular=0.1)
    for b, s0 in zip(IDS, (1.0, -1.0)):
        body = st.body(b, pos=(0, 0, z_p), joint=E.Joint("hinge", axis=(0, 1, 0), name=f"{b}_j"))
        body.parts.append(f'<geom type="capsule" size="0.0006" fromto="0 0 0 0 0 {-(L - r):.5g}" material="{thread}" '
                          'mass="1e-5" contype="0" conaffinity="0"/>')
        body.geom(E.sphere(r), rgb=colors[b], obj=b, pos=(0, 0, -L), specular=0.5, **E.NO_CONTACT)
    half = L * math.sin(th_eq) + 0.08
    cam = C.frame_camera(st, rng, variant, (-half, z_p - L - 0.05), (half, z_p + 0.03))
    world = st.build()
    m = float(world.model.body_mass[world.id("body", "left")])
    kappa = m * E.G * math.tan(th_eq) * (2 * L * math.sin(th_eq)) ** 2
    w_n = math.sqrt(E.G / (L * math.cos(th_eq)))
    for b in IDS:  # damping for the chosen ratio at the rest angle
        world.model.dof_damping[world.model.jnt_dofadr[world.model.joint(f"{b}_j").id]] = 2 * zeta * m * L * L * w_n
    ids = {b: world.id("body", b) for b in IDS}
    hold = m * E.G * math.tan(th0)

    def hook_of(law: str):
        share = {b: (anti_f if law == "anti" and b == anti_ball else 1.0) for b in IDS}

        def hook(w, d):
            ramp = min(max((d.time - t_on) / 0.05, 0.0), 1.0)
            sep = d.xipos[ids["right"]] - d.xipos[ids["left"]]
            dist = float(np.linalg.norm(sep))
            f = ramp * kappa / dist**2 * sep / dist
            f[0] += (1 - ramp) * hold  # before the charge: the touching balls' contact force holds them apart
            d.xfrc_applied[ids["left"], :3] = -share["left"] * f
            d.xfrc_applied[ids["right"], :3] = share["right"] * f
        return hook

    def init(d):
        d.qpos[K.qadr(world, "left_j")], d.qpos[K.qadr(world, "right_j")] = th0, -th0

    recs = {"true": world.simulate(duration, FPS, hook=hook_of("true"), init=init)}
    first = next(iter(world.render(recs["true"])))
    masks = world.masks(recs["true"])
    objects = [world.object_spec(b, "bob", first, masks) for b in IDS]
    t = recs["true"].times[:, recs["true"].times.shape[1] // 2]
    tracks, final = {}, {}
    for b in IDS:
        q = recs["true"].qpos[:, recs["true"].qpos.shape[1] // 2, K.qadr(world, f"{b}_j")]
        pts = [world.project((-L * math.sin(a), 0, z_p - L * math.cos(a))) for a in q]
        tracks[b] = [(round(float(a), 5), round(p[0], 3), round(p[1], 3)) for a, p in zip(t, pts)]
        final[b] = abs(math.degrees(float(q[-1])))
    pivot = world.project((0, 0, z_p))
    known = {"pivot": [round(pivot[0], 3), round(pivot[1], 3)], "theta_eq_deg": round(math.degrees(th_eq), 4),
             "t_on_s": round(t_on, 4), "zeta": round(zeta, 4), "anti_ball": anti_ball, "anti_force_share": anti_f,
             "colors": {o.id: list(o.color) for o in objects}, "length_px": round(L * world.px_per_m((0, 0, z_p)), 3),
             "studio": {"variant": variant.name, "camera": cam,
                        "motion": "MuJoCo: damped hinges under gravity, Coulomb repulsion from t_on"},
             "anti_note": "twin: anti_ball feels anti_force_share of the push; the rest is lopsided"}
    case = E.studio_case(
        "wmle", "charged_balls", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=objects,
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera looks at two identical small light balls, one of each colour, hanging from the same "
                "point of a horizontal wooden bar on two equal thin insulating threads. At first they hang straight "
                "down, just touching. Both have been given the same kind of electric charge, so at the start they "
                "push each other apart, swing out and back a few times, and come to rest with the threads spread "
                "apart. The bar does not move and time runs at a steady rate."),
        assumptions=["equal masses and charges", "equal, fixed thread lengths from one pivot",
                     "still air, fixed side view, uniform time"],
        criteria=["P31: M1/M2 of WMLE appendix B.7"],
        quantities={"theta_eq_deg": math.degrees(th_eq), "theta_left_final_deg": final["left"],
                    "theta_right_final_deg": final["right"], "e1": abs(final["left"] - final["right"])})
    case.truth.tracks = tracks

    def render(law: str):
        if law not in recs:
            recs[law] = world.simulate(duration, FPS, hook=hook_of(law), init=init)
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P32


def _axial_inertia(world: E.World, body: str) -> float:
    """Moment of inertia of a body about the vertical through its frame's origin (its centre of mass there)."""
    import mujoco

    i = world.id("body", body)
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, world.model.body_iquat[i])
    R = R.reshape(3, 3)
    return float((R @ np.diag(world.model.body_inertia[i]) @ R.T)[2, 2])


@scene("wmle", "compass_needles")
def compass_needles(index: int, seed: int) -> StyledCase:
    from lawful.world.scenes.electro import COMPASSES as IDS

    label = 32
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    R = float(rng.uniform(0.04, 0.05))
    sep = float(rng.uniform(0.2, 0.25))
    north = math.radians(float(rng.uniform(-55.0, 55.0)) + 180.0 * int(rng.integers(2)))
    ratio = float(rng.uniform(12.0, 25.0))
    sgn = 1.0 if rng.integers(2) else -1.0  # the current up or down: which way its field circles
    t_on = float(rng.uniform(0.5, 1.0))
    period, zeta = float(rng.uniform(0.6, 0.9)), float(rng.uniform(0.25, 0.35))
    duration = 3.5
    colors = dict(zip(IDS, C.object_rgbs(rng, 2, avoid=C.scene_hues(st.look))))
    xs = {"left": -0.5 * sep, "right": 0.5 * sep}
    z0 = 0.012  # the board's top

    st.floor()
    wood = tuple(int(v) for v in rng.uniform([150, 105, 60], [200, 150, 100]))
    st.fixed(E.box(0.5 * sep + R + 0.06, R + 0.07, 0.5 * z0), (0, 0, 0.5 * z0), wood, 0.2, **E.NO_CONTACT)
    st.fixed(E.cylinder(0.0035, 0.05), (0, 0, z0 + 0.05), COPPER, 0.8, **E.NO_CONTACT)  # the wire, standing up
    face = tuple(int(v) for v in rng.uniform(225, 245, 3))
    rim = tuple(int(v) for v in rng.uniform(40, 70, 3))
    south = tuple(int(v) for v in rng.uniform(35, 60, 3))
    Ln = 0.82 * R
    for b, x in xs.items():
        st.fixed(E.cylinder(R + 0.004, 0.003), (x, 0, z0 + 0.003), rim, 0.5, **E.NO_CONTACT)
        st.fixed(E.cylinder(R, 0.0032), (x, 0, z0 + 0.0032), face, 0.2, **E.NO_CONTACT)
        body = st.body(b, pos=(x, 0, z0 + 0.009), joint=E.Joint("hinge", axis=(0, 0, 1), name=f"{b}_j"))
        body.geom(E.box(0.5 * Ln, 0.0035, 0.0012), rgb=colors[b], obj=b, pos=(0.5 * Ln, 0, 0), specular=0.4,
                  **E.NO_CONTACT)
        body.geom(E.box(0.5 * Ln, 0.0035, 0.0012), rgb=south, pos=(-0.5 * Ln, 0, 0), specular=0.4, **E.NO_CONTACT)
        body.geom(E.cylinder(0.003, 0.002), rgb=(200, 200, 205), pos=(0, 0, 0.001), specular=0.8, **E.NO_CONTACT)
    # camera: from above, tilted 1-3 degrees towards -y (image up = +y)
    fov = float(rng.uniform(30.0, 40.0))
    f = 0.5 * H / math.tan(math.radians(fov) / 2)
    span_x, span_y = sep + 2 * R + 0.06, 2 * R + 0.08
    dist = max(f * span_x / (variant.fill * W), f * span_y / (variant.fill * H))
    tilt = math.radians(float(rng.uniform(1.0, 3.0)))
    target = np.array([float(rng.uniform(-0.01, 0.01)), float(rng.uniform(-0.01, 0.01)), z0])
    pos = target + dist * np.array([0.0, -math.sin(tilt), math.cos(tilt)])
    st.camera(pos=tuple(pos), lookat=tuple(target), fovy=fov)
    world = K.near_clip(st.build(), 1.0)  # also a finer shadow map: the board is all the scene
    world.model.opt.gravity[:] = 0.0
    dof = {b: int(world.model.jnt_dofadr[world.model.joint(f"{b}_j").id]) for b in IDS}
    inertia = _axial_inertia(world, "left")
    e = np.array([math.cos(north), math.sin(north)])

    def field(b: str, law: str, on: bool) -> np.ndarray:
        side = xs["left" if law == "anti" else b]
        wire = sgn * ratio * np.array([0.0, 1.0 if side > 0 else -1.0])  # z × r̂: circles the wire
        return e + wire if on else e

    b_on = float(np.linalg.norm(field("left", "true", True)))
    w_n = 2 * math.pi / period / math.sqrt(1 - zeta**2)
    kappa = inertia * w_n**2 / b_on
    for b in IDS:
        world.model.dof_damping[dof[b]] = 2 * zeta * inertia * w_n
    qa = {b: K.qadr(world, f"{b}_j") for b in IDS}

    def hook_of(law: str):
        def hook(w, d):
            for b in IDS:
                B = field(b, law, d.time >= t_on)
                th = d.qpos[qa[b]]
                d.qfrc_applied[dof[b]] = -kappa * (math.cos(th) * B[1] - math.sin(th) * B[0]) * -1.0
        return hook

    def init(d):
        for b in IDS:
            d.qpos[qa[b]] = north

    recs = {"true": world.simulate(duration, FPS, hook=hook_of("true"), init=init)}
    first = next(iter(world.render(recs["true"])))
    masks = world.masks(recs["true"])
    objects = []
    for b in IDS:
        o = world.object_spec(b, "other", first, masks)
        o.box = pad_box(o.box)
        objects.append(o)
    final = {b: math.degrees(math.atan2(*field(b, "true", True)[::-1])) for b in IDS}
    t = recs["true"].times[:, recs["true"].times.shape[1] // 2]
    tracks = {}
    for b, x in xs.items():
        q = recs["true"].qpos[:, recs["true"].qpos.shape[1] // 2, qa[b]]
        pts = [world.project((x + 0.5 * Ln * math.cos(a), 0.5 * Ln * math.sin(a), z0 + 0.009)) for a in q]
        tracks[b] = [(round(float(a), 5), round(p[0], 3), round(p[1], 3)) for a, p in zip(t, pts)]
    dials = {b: [round(v, 3) for v in world.project((x, 0, z0 + 0.009))] for b, x in xs.items()}
    sep_deg = abs((final["left"] - final["right"] + 180) % 360 - 180)
    known = {"dials": dials, "north_deg": round(math.degrees(north), 4), "final_deg": final,
             "field_ratio": round(ratio, 4), "t_on_s": round(t_on, 4), "period_s": round(period, 4),
             "zeta": round(zeta, 4), "colors": {o.id: list(o.color) for o in objects},
             "studio": {"variant": variant.name, "camera": {"pos": [round(float(v), 4) for v in pos],
                                                            "lookat": [round(float(v), 4) for v in target],
                                                            "fovy_deg": round(fov, 3)},
                        "motion": "MuJoCo: damped hinges turned by -kappa |B| sin(theta - theta_B)"},
             "anti_note": "twin: both needles feel the left one's wire field and settle the same way"}
    case = E.studio_case(
        "wmle", "compass_needles", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=objects,
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera looks down on a wooden board with two magnetic compasses lying on it, one to the left "
                "and one to the right of a straight copper wire that stands up vertically through a small hole in "
                "the middle of the board. Each compass needle has a coloured north half and a dark south half; at "
                "first both needles point the same way, along the Earth's field. Shortly after the start a strong "
                "steady current is switched on in the wire; the needles swing round, oscillate briefly and come to "
                "rest. Time runs at a steady rate."),
        assumptions=["a long straight wire perpendicular to the board", "the wire's field far stronger than the "
                     "Earth's at the compasses", "free, damped needles", "fixed top view, uniform time"],
        criteria=["P32: M1 of WMLE appendix B.7"], quantities={"d_deg": sep_deg, "anti_d_deg": 0.0})
    case.truth.tracks = tracks

    def render(law: str):
        if law not in recs:
            recs[law] = world.simulate(duration, FPS, hook=hook_of(law), init=init)
        return world.render(recs[law])

    return StyledCase(case, first, render)
