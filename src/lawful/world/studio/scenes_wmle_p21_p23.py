"""Studio scenes of the WMLE hydrostatics tasks P21–P23, drawn in 3-D by MuJoCo.

- P21 ``communicating_vessels``: a glass U-tube with a narrow and a wide round arm standing in a wooden
  base (the joining channel runs inside the base) in front of a backing board. Each arm's liquid is a
  coloured column on a vertical slide joint whose top is the free surface. Motion: **kinematic**, the
  task's own closed form (:func:`lawful.world.liquids.u_tube_levels`: a damped slosh, volume conserved
  between arms of areas ∝ r²). Twin: the narrow arm ends ``anti_offset`` above (or below) the wide one.
- P22 ``floating_ice``: an upright square column of ice (opaque, pale) bobbing in a tall round glass of
  tinted, translucent water, so the submerged part is seen through the water. Motion: **kinematic**, the
  task's closed form (the submerged share relaxes to 0.917 as a damped oscillation; the waterline rises
  with the volume the ice displaces). The camera is level with the settled waterline (as one would film
  it: the surface is then seen edge-on, not as an ellipse). Twin: the column settles at ``anti_fraction``.
- P23 ``surface_gravity``: see :func:`surface_gravity`.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from lawful.world import liquids as lq
from lawful.world.studio import _wmle_p08_p15 as C
from lawful.world.studio import _wmle_p16_p33 as K
from lawful.world.studio import engine as E
from lawful.world.studio.registry import scene
from lawful.world.styles import StyledCase

FPS = 24.0
WOOD = (150, 108, 66)


def _liquid_rgb(rng: np.random.Generator) -> tuple[int, int, int]:
    """A dye colour near one of the flat style's tints (a different shade per scene)."""
    base = np.asarray(lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))], float)
    return tuple(int(v) for v in np.clip(base + rng.uniform(-15, 15, 3), 0, 255))


def _board(st: E.Stage, rng, x0: float, x1: float, z0: float, z1: float, y: float) -> None:
    """A pale backing board (what a demonstration apparatus is mounted on) between ``x0..x1``, ``z0..z1``."""
    tone = rng.uniform(185, 235) + rng.uniform(-12, 12, 3)
    st.fixed(E.box(0.5 * (x1 - x0), 0.006, 0.5 * (z1 - z0)), (0.5 * (x0 + x1), y, 0.5 * (z0 + z1)),
             tuple(np.clip(tone, 0, 255)), 0.1, **E.NO_CONTACT)


# ----------------------------------------------------------------------------- P21


@scene("wmle", "communicating_vessels")
def communicating_vessels(index: int, seed: int) -> StyledCase:
    label = 21
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    narrow_left = bool(rng.integers(2))
    r_n, r_w = float(rng.uniform(0.010, 0.014)), float(rng.uniform(0.026, 0.034))
    wall = 0.0025
    gap = float(rng.uniform(0.12, 0.2))
    r_l, r_r = (r_n, r_w) if narrow_left else (r_w, r_n)
    x_l, x_r = -0.5 * (gap + r_l + r_r), 0.5 * (gap + r_l + r_r)
    z_b, arm = 0.06, float(rng.uniform(0.3, 0.34))      # top of the base, arms' height above it
    z_t = z_b + arm
    h_eq = z_b + float(rng.uniform(0.4, 0.52)) * arm    # shared rest level
    z0 = float(rng.uniform(0.16, 0.22)) * arm           # the narrow arm starts this far up
    period, zeta = float(rng.uniform(1.0, 1.5)), float(rng.uniform(0.22, 0.3))
    offset = float(rng.uniform(0.08, 0.15) * arm * rng.choice([-1, 1]))  # twin: narrow minus wide rest level
    a_l, a_r = r_l**2, r_r**2
    z0_left = z0 if narrow_left else -z0 * a_r / a_l
    off_left = offset if narrow_left else -offset
    liquid = _liquid_rgb(rng)
    duration = 5.0

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.6)))
    bx0, bx1 = x_l - r_l - 0.06, x_r + r_r + 0.06
    _board(st, rng, bx0, bx1, z_b, z_t + 0.04, y=0.06)
    st.fixed(E.box(0.5 * (bx1 - bx0) - 0.01, 0.05, 0.5 * z_b), (0.5 * (bx0 + bx1), 0.0, 0.5 * z_b), WOOD, 0.25)
    gmat = K.glass(st, tuple(rng.uniform(200, 240, 3)), float(rng.uniform(0.12, 0.22)))
    lmat = K.glass(st, liquid, 1.0, specular=0.5)
    span = z_t - z_b + 0.3
    for side, x, r in (("left", x_l, r_l), ("right", x_r, r_r)):
        st.static.append(f'<geom name="arm_{side}" type="cylinder" size="{r + wall:.5g} {0.5 * arm:.5g}" '
                         f'pos="{x:.5g} 0 {0.5 * (z_b + z_t):.5g}" material="{gmat}" contype="0" conaffinity="0"/>')
        body = K.slide_body(st, f"liq_{side}", (x, 0.0, 0.0))
        body.parts.append(f'<geom name="liq_{side}_g" type="cylinder" size="{r:.5g} {0.5 * span:.5g}" '
                          f'pos="0 0 {-0.5 * span:.5g}" material="{lmat}" contype="0" conaffinity="0"/>')
    cam = C.frame_camera(st, rng, variant, (bx0 - 0.02, 0.0), (bx1 + 0.02, z_t + 0.06))
    world = st.build()
    ql, qr = K.qadr(world, "liq_left_j"), K.qadr(world, "liq_right_j")

    def levels(t, law: str):
        yl, yr = lq.u_tube_levels(np.atleast_1d(t), -h_eq, z0_left, a_l, a_r, period, zeta,
                                  offset=off_left if law == "anti" else 0.0)
        return -yl, -yr  # heights (m): the task's rows are "down", heights are "up"

    def qpos_of(law):
        def f(t):
            q = np.zeros(world.model.nq)
            hl, hr = levels(t, law)
            q[ql], q[qr] = hl[0], hr[0]
            return q
        return f

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    arms = {"left": K.band_of(world, (x_l, 0.0), r_l, z_b, z_t, share=0.55),
            "right": K.band_of(world, (x_r, 0.0), r_r, z_b, z_t, share=0.55)}
    t = np.arange(int(round(duration * FPS))) / FPS
    hl, hr = levels(t, "true")
    row = lambda x, h: world.project((x, 0.0, h))[1]  # noqa: E731
    known = {"arms": arms, "liquid": list(liquid), "rest_row": round(row(x_l, h_eq), 3),
             "rest_level_m": round(h_eq, 5), "arm_radii_m": [round(r_l, 5), round(r_r, 5)],
             "anti_offset_m": round(off_left, 5),
             "anti_offset_px": round(row(x_l, h_eq) - row(x_l, h_eq + off_left), 3),
             "studio": {"variant": variant.name, "camera": cam, "motion": "kinematic: damped U-tube slosh"},
             "anti_note": "twin: the left level ends anti_offset_m above the right one (volume conserved)"}
    rows_l = [row(x_l, h) for h in hl]
    rows_r = [row(x_r, h) for h in hr]
    anti_px = known["anti_offset_px"]
    case = E.studio_case(
        "wmle", "communicating_vessels", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A fixed camera looks square-on at a glass U-tube mounted on a pale board and standing in a "
                f"wooden base: its {'left' if narrow_left else 'right'} arm is a narrow tube and the other a much "
                "wider one, joined through a channel inside the base. It holds coloured liquid. At the start the "
                "liquid in the narrow arm has been pushed up above the level in the wide arm and is let go: it "
                "sloshes between the arms and settles. Nothing is added or removed; the camera does not move."),
        assumptions=["one liquid, nothing added or removed", "both arms open to the same air",
                     "arms wide enough that capillarity is negligible", "fixed camera, uniform time"],
        criteria=["P21: M1/M2 of WMLE appendix B.5"],
        quantities={"rest_row": known["rest_row"], "left_row_end": rows_l[-1], "right_row_end": rows_r[-1],
                    "e1": 0.0, "anti_e1": -anti_px / max(H, arms["left"][3] - arms["left"][1])})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P22

DRAFT = 0.917


@scene("wmle", "floating_ice")
def floating_ice(index: int, seed: int) -> StyledCase:
    label = 22
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    st = E.Stage(C.stage_seed(seed, label, index), W, H)
    R = float(rng.uniform(0.12, 0.14))                  # the jar's inner radius
    a = float(rng.uniform(0.04, 0.05))                  # the ice column's side (square section)
    h_i = float(rng.uniform(0.14, 0.16))
    xi = float(rng.uniform(-0.012, 0.012))              # the column's axis, off the glass's centre
    z_s = float(rng.uniform(0.22, 0.27))                # the jar stands on a block: the floor's far edge
    z_f = z_s + 0.02                                    # (seen through the water) stays below the jar's floor
    depth = DRAFT * h_i + float(rng.uniform(0.06, 0.075))   # settled water depth
    z_eq = z_f + depth                                  # settled waterline (m)
    z_top = z_eq + float(rng.uniform(0.06, 0.08))       # the jar's rim
    f0 = float(rng.uniform(0.72, 0.8))
    period, zeta = float(rng.uniform(0.7, 1.0)), float(rng.uniform(0.4, 0.5))
    f_anti = float(rng.uniform(0.65, 0.78))
    r_area = a * a / (math.pi * R * R)
    water = _liquid_rgb(rng)
    duration = 5.0

    st.floor()
    st.backdrop(y=float(rng.uniform(0.3, 0.55)))
    gmat = K.glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.1, 0.16)))
    st.static.append(f'<geom name="glass" type="cylinder" size="{R + 0.004:.5g} {0.5 * (z_top - z_s):.5g}" '
                     f'pos="0 0 {0.5 * (z_top + z_s):.5g}" material="{gmat}" contype="0" conaffinity="0"/>')
    wmat = K.glass(st, water, float(rng.uniform(0.35, 0.45)), specular=0.6)
    span = 0.5
    wb = K.slide_body(st, "water", (0.0, 0.0, 0.0))
    wb.parts.append(f'<geom name="water_g" type="cylinder" size="{R:.5g} {0.5 * span:.5g}" pos="0 0 {-0.5 * span:.5g}" '
                    f'material="{wmat}" contype="0" conaffinity="0"/>')
    ice = tuple(int(v) for v in rng.uniform([215, 225, 232], [235, 242, 250]))
    ib = K.slide_body(st, "ice", (xi, 0.0, 0.0))
    ib.geom(E.box(0.5 * a, 0.5 * a, 0.5 * h_i), material=K.glass(st, ice, 1.0, specular=0.7, emission=0.35),
            pos=(0, 0, -0.5 * h_i), **E.NO_CONTACT)  # cloudy ice scatters light: a little self-lit
    # bottom-clipping: the water below the glass floor is hidden by the floor itself (an opaque glass base)
    st.fixed(E.box(R + 0.05, R + 0.006, 0.5 * z_s), (0, 0, 0.5 * z_s), WOOD, 0.25)  # no deeper than the jar
    st.fixed(E.cylinder(R + 0.004, 0.01), (0, 0, z_s + 0.01), tuple(rng.uniform(150, 185, 3)), 0.8,
             **E.NO_CONTACT)
    half = max(z_top + 0.03 - z_eq, z_eq - z_s + 0.03)
    cam = C.frame_camera(st, rng, variant, (-R - 0.06, z_eq - half), (R + 0.06, z_eq + half), max_tilt_deg=0.0)
    pos, right, up, fov = st.cam
    st.cam = (np.array([pos[0], pos[1], z_eq]), right, up, fov)  # level with the settled waterline
    cam["pos"][2] = round(z_eq, 4)
    world = K.build_msaa(st)  # the share is read to 0.3 %: edges must be area-sampled
    qw, qi = K.qadr(world, "water_j"), K.qadr(world, "ice_j")

    def heights(t, law: str):
        f_end = DRAFT if law == "true" else f_anti
        f = f_end + lq.damped(np.atleast_1d(t), f0 - f_end, period, zeta)
        d = f * h_i
        z_w = z_eq + r_area * (d - DRAFT * h_i)
        return z_w, z_w - d + h_i  # waterline, ice top

    def qpos_of(law):
        def g(t):
            q = np.zeros(world.model.nq)
            zw, top = heights(t, law)
            q[qw], q[qi] = zw[0], top[0]
            return q
        return g

    recs = {"true": K.kinematic(world, duration, FPS, qpos_of("true"))}
    first = next(iter(world.render(recs["true"])))
    px = lambda x, z, y=0.0: world.project((x, y, z))  # noqa: E731
    zw_end, top_end = (float(v[0]) for v in heights(duration, "true"))
    zs_hi = z_eq + r_area * h_i * (DRAFT - min(f0, f_anti)) + 0.0
    zs_lo = z_eq - r_area * h_i * (DRAFT - min(f0, f_anti)) * 0.3
    y_hi, y_lo = px(0, zs_hi)[1] - 1, px(0, zs_lo)[1] + 1   # the waterline's rows stay within these
    y_rim = max(px(0, z_top, -R)[1], px(0, z_top, R)[1]) + 4  # below both rims (seen from below the rim)
    y_floor = px(0, z_f, R)[1] - 4  # the floor's far edge: it is seen from above
    xl, xr = px(-R, z_eq)[0], px(R, z_eq)[0]
    il, ir = px(xi - 0.5 * a, z_eq, -0.5 * a)[0], px(xi + 0.5 * a, z_eq, -0.5 * a)[0]  # the ice's front face
    ol = min(px(xi - 0.5 * a, z, y)[0] for z in (z_eq - h_i, z_eq + h_i) for y in (-0.5 * a, 0.5 * a))
    orr = max(px(xi + 0.5 * a, z, y)[0] for z in (z_eq - h_i, z_eq + h_i) for y in (-0.5 * a, 0.5 * a))
    m = 4.0
    edge = 0.12 * (xr - xl)  # open-water bands stay clear of the glass's curved sides
    y_mid = px(0, z_f + 0.35 * (z_eq - z_f), R)[1]  # open-water bands stop short of the shadows low in the jar
    bands = {"water_left": [xl + edge, y_rim, ol - m, y_mid], "water_right": [orr + m, y_rim, xr - edge, y_mid],
             "ice_top": [il + 0.25 * (ir - il), y_rim, ir - 0.25 * (ir - il), y_hi - 2],
             "ice_bottom": [il + 0.25 * (ir - il), y_lo + 4, ir - 0.25 * (ir - il), y_floor]}
    bands = {k: [round(float(v), 2) for v in b] for k, b in bands.items()}
    if any(b[2] - b[0] < 3 or b[3] - b[1] < 8 for b in bands.values()):
        raise ValueError(f"floating_ice scene {index}/{seed}: a band is too small ({bands})")
    known = {"bands": bands, "vessel": [round(xl, 2), round(y_rim - 4, 2), round(xr, 2), round(y_floor + 4, 2)],
             "water": list(water), "ice_height_m": round(h_i, 5), "ice_side_m": round(a, 5),
             "waterline_eq_px": round(px(0, z_eq)[1], 3), "release_fraction": round(f0, 4),
             "anti_fraction": round(f_anti, 4),
             "studio": {"variant": variant.name, "camera": cam, "motion": "kinematic: damped bobbing"},
             "anti_note": "twin: the column floats with anti_fraction of its height under water"}
    case = E.studio_case(
        "wmle", "floating_ice", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[], known=known,
        variant=f"studio-{variant.name}",
        prompt=("A camera level with the water surface looks at a wide clear jar of tinted water on a table. "
                "A tall, narrow, upright column of freshwater ice has just been set into the water a little too "
                "high and let go: it bobs a few times and comes to rest floating upright near the middle, touching "
                "neither the glass's sides nor its bottom. The ice does not melt; the camera does not move."),
        assumptions=["freshwater ice (density 917 kg/m³) in fresh water (1000 kg/m³)", "no melting",
                     "the column floats upright and touches neither the walls nor the bottom",
                     "fixed side view, uniform time"],
        criteria=["P22: M1/M2 of WMLE appendix B.5"],
        quantities={"fraction": DRAFT, "e1": 0.0, "e2": 0.0, "anti_e1": abs(f_anti - DRAFT),
                    # the settled edges as a level camera sees them: the ice's front face, the surface edge-on
                    "waterline_row_end": px(0, zw_end)[1], "ice_top_row_end": px(xi, top_end, -0.5 * a)[1],
                    "ice_bottom_row_end": px(xi, top_end - h_i, -0.5 * a)[1]})

    def render(law: str):
        if law not in recs:
            recs[law] = K.kinematic(world, duration, FPS, qpos_of(law))
        return world.render(recs[law])

    return StyledCase(case, first, render)


# ----------------------------------------------------------------------------- P23


def _hold(qpos0: np.ndarray, t_release: float):
    """Hook keeping the free ball at its initial state until ``t_release`` (the thread is then cut)."""

    def hook(w: E.World, d) -> None:
        if d.time < t_release - 1e-9:
            d.qpos[:7] = qpos0
            d.qvel[:6] = 0.0

    return hook


def _liquid_block(x0: float, x1: float, y0: float, y1: float, z0: float, h: float, tilt_deg: float):
    """Vertices of a liquid filling ``[x0, x1] × [y0, y1]`` from ``z0`` up to the plane through height ``h`` at
    the middle column, turned by ``tilt_deg`` about the viewing axis (0: a level surface)."""
    xc, k = 0.5 * (x0 + x1), math.tan(math.radians(tilt_deg))
    return [(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, h + k * (x - xc))]


@scene("wmle", "surface_gravity")
def surface_gravity(index: int, seed: int) -> StyledCase:
    """P23: a small glass tank of still liquid on a table; a ball hangs on a thread beside it and drops.

    The fall is **simulated** by MuJoCo (a free ball held until the thread is cut, then gravity; it lands on
    the table). The liquid is static. The camera is level or rolled by 4–10° (:class:`~._wmle_p16_p33.Tilt`).
    Twin: the liquid's surface is turned by ``anti_tilt_deg`` from the horizontal for the whole clip (its
    first frame therefore differs from the law clip's in the liquid only).
    """
    label = 23
    rng = C.scene_rng(seed, label, index)
    variant = C.variant_of(index)
    W, H = variant.size
    phi = 0.0 if rng.random() < 1 / 3 else float(rng.uniform(4, 10) * rng.choice([-1, 1]))
    tilt = K.Tilt(phi, (W, H))
    st = E.Stage(C.stage_seed(seed, label, index), *tilt.canvas)
    vessel_left = bool(rng.integers(2))
    w_t, d_t, h_t = float(rng.uniform(0.36, 0.46)), float(rng.uniform(0.07, 0.1)), float(rng.uniform(0.26, 0.32))
    wall = 0.006
    r = float(rng.uniform(0.022, 0.028))
    drop = float(rng.uniform(0.55, 0.8))            # the ball's bottom above the table
    gapx = float(rng.uniform(0.1, 0.18))
    x_ball = (0.5 * w_t + gapx) * (1 if vessel_left else -1)
    xt0, xt1 = -0.5 * w_t, 0.5 * w_t
    h_s = float(rng.uniform(0.5, 0.7)) * h_t          # surface height above the tank's inner floor
    hold = float(rng.uniform(0.3, 0.45))
    t_fall = math.sqrt(2 * drop / E.G)
    anti = float(rng.uniform(8, 15) * rng.choice([-1, 1]))
    liquid = _liquid_rgb(rng)
    color = C.object_rgbs(rng, 1, avoid=C.scene_hues(st.look) + [0.58])[0]
    duration = round(hold + t_fall + 0.8, 4)

    st.floor()
    st.backdrop(y=float(rng.uniform(0.35, 0.6)))
    gmat = K.glass(st, tuple(rng.uniform(205, 240, 3)), float(rng.uniform(0.1, 0.18)))
    zf = 0.012  # the tank's glass floor
    st.static.append(f'<geom name="tank" type="box" size="{0.5 * w_t:.5g} {0.5 * d_t:.5g} {0.5 * h_t:.5g}" '
                     f'pos="0 0 {0.5 * h_t:.5g}" material="{gmat}" contype="0" conaffinity="0"/>')
    frame = tuple(int(v) for v in rng.uniform(40, 80, 3))
    for sx in (xt0, xt1):  # the tank's dark corner posts
        for sy in (-0.5 * d_t, 0.5 * d_t):
            st.fixed(E.box(0.006, 0.006, 0.5 * h_t), (sx, sy, 0.5 * h_t), frame, 0.4, **E.NO_CONTACT)
    lmat = K.glass(st, liquid, 0.92, specular=0.6)
    inner = (xt0 + wall, xt1 - wall, -0.5 * d_t + wall, 0.5 * d_t - wall, zf)
    for law, deg in (("true", 0.0), ("anti", anti)):
        K.mesh(st, f"liquid_{law}", _liquid_block(*inner, zf + h_s, deg))
        C.mocap(st, f"liquid_{law}", (0, 0, 0 if law == "true" else -5.0),
                [f'<geom name="liquid_{law}_g" type="mesh" mesh="liquid_{law}" material="{lmat}" '
                 f'contype="0" conaffinity="0"/>'])
    z_ball = drop + r
    z_bar = z_ball + r + float(rng.uniform(0.12, 0.2))
    metal = tuple(int(v) for v in rng.uniform(140, 175, 3))
    st.fixed(E.box(0.12, 0.02, 0.012), (x_ball, 0.0, z_bar + 0.012), metal, 0.8, **E.NO_CONTACT)
    st.fixed(E.cylinder(0.01, 0.5 * (z_bar + 0.024)), (x_ball + 0.11 * np.sign(x_ball), 0.04, 0.5 * (z_bar + 0.024)),
             metal, 0.8, **E.NO_CONTACT)
    thread = E.capsule(0.0015, (x_ball, 0, z_ball + 0.8 * r), (x_ball, 0, z_bar))
    st.static.append(f'<geom name="thread" {E._attrs(thread)} material="{st.material((236, 234, 224), 0.1)}" '
                     'contype="0" conaffinity="0"/>')
    ball = st.body("ball", pos=(x_ball, 0.0, z_ball), joint="free")
    ball.geom(E.sphere(r), rgb=color, obj="ball", specular=0.7, density=7800,
              solref=E.restitution_solref(0.35), priority=1)
    lo = [min(xt0, x_ball - 0.15) - 0.04, 0.0]
    hi = [max(xt1, x_ball + 0.15) + 0.04, z_bar + 0.05]
    if variant.distractor:
        dx = x_ball + 0.09 * np.sign(x_ball)
        st.distractor(E.sphere(0.8 * r), pos=(dx, 0.08, 0.8 * r), near=color)
    cam = C.frame_camera(st, rng, variant, lo, hi)
    tilt.fix_fov(st, cam["fovy_deg"])
    world = st.build()
    qpos0 = np.array([x_ball, 0.0, z_ball, 1, 0, 0, 0], float)
    lid = {law: world.model.body_mocapid[world.id("body", f"liquid_{law}")] for law in ("true", "anti")}

    def simulate(law: str) -> E.Recording:
        held = _hold(qpos0, hold)

        def init(d):
            d.mocap_pos[lid["true"]] = (0, 0, 0 if law == "true" else -5.0)
            d.mocap_pos[lid["anti"]] = (0, 0, 0 if law == "anti" else -5.0)

        def hook(w, d):
            held(w, d)
            init(d)

        return world.simulate(duration, FPS, hook, init)

    recs = {"true": simulate("true")}
    frames0 = tilt.frames(world, recs["true"])
    first = next(frames0)
    frames0.close()
    masks = {k: tilt.mask(v) for k, v in world.masks(recs["true"]).items()}
    to_px = lambda p: tilt.point(world.project(p))  # noqa: E731
    ball_obj = world.object_spec("ball", "sphere", first, masks,
                                 radius_px=round(r * world.px_per_m((x_ball, 0, z_ball)), 3))
    bands = _surface_bands(to_px, (W, H), inner, zf, zf + h_t - 0.02)
    xyz = recs["true"].body_xyz(world, "ball")
    t = recs["true"].times[:, recs["true"].times.shape[1] // 2]
    surf = [to_px((x, 0.0, zf + h_s)) for x in (inner[0], inner[1])]
    known = {"surface_bands": bands, "rotation_deg": round(phi, 4), "radius_px": ball_obj.known["radius_px"],
             "surface_ends_px": [[round(a, 3), round(b, 3)] for a, b in surf], "liquid": list(liquid),
             "color": list(ball_obj.color), "hold_s": round(hold, 4), "fall_time_s": round(t_fall, 4),
             "anti_tilt_deg": round(anti, 4),
             "studio": {"variant": variant.name, "camera": cam, "motion": "simulated: free fall"},
             "anti_note": "twin: the surface is turned by anti_tilt_deg from the perpendicular to the fall"}
    case = E.studio_case(
        "wmle", "surface_gravity", index, seed, duration=duration, fps=FPS, width=W, height=H, objects=[ball_obj],
        known=known, variant=f"studio-{variant.name}",
        prompt=("A small glass tank of coloured liquid stands still on a table; beside it a steel-coloured ball "
                f"hangs on a thread about {drop:.1f} m above the table. The thread is cut and the ball drops "
                "freely to the table while the liquid stays perfectly still. "
                + ("The camera is level" if phi == 0 else "The camera is held slightly tilted") +
                " and does not move; time runs at a steady rate."),
        assumptions=["the liquid is at rest", "the ball falls freely from rest (negligible air resistance)",
                     "uniform gravity", "a camera that does not move (possibly tilted)"],
        criteria=["P23: M1/M2 of WMLE appendix B.5"],
        quantities={"e1": 0.0, "anti_e1": abs(anti), "rotation_deg": phi})
    case.truth.events = {"release": hold, "ground_contact": hold + t_fall}
    case.truth.tracks = {"ball": [(round(float(a), 5), *(round(v, 3) for v in to_px(p))) for a, p in zip(t, xyz)]}

    def render(law: str):
        if law not in recs:
            recs[law] = simulate(law)
        return tilt.frames(world, recs[law])

    return StyledCase(case, first, render)


def _surface_bands(to_px, size, inner, z_lo: float, z_hi: float, n: int = 9, half: float = 3.0,
                   margin: float = 6.0) -> list[list[float]]:
    """``n`` axis-aligned column bands (output px) across the tank's front inner face, each kept ``margin`` px
    inside the (possibly turned) quadrilateral ``x ∈ inner[0..1]``, ``z ∈ [z_lo, z_hi]`` and in the frame."""
    x0, x1, y0 = inner[0], inner[1], inner[2]
    quad = np.array([to_px((x, y0, z)) for x, z in ((x0, z_hi), (x1, z_hi), (x1, z_lo), (x0, z_lo))], np.float32)
    W, H = size
    out = []
    for xc in np.linspace(x0 + 0.12 * (x1 - x0), x1 - 0.12 * (x1 - x0), n):
        u = float(np.round(to_px((xc, y0, 0.5 * (z_lo + z_hi)))[0]))
        vs = np.arange(2.0, H - 2.0, 0.5)
        keep = np.ones(len(vs), bool)
        for du in (-half - 0.5, half + 0.5):
            keep &= np.array([cv2.pointPolygonTest(quad, (u + du, v), True) > margin for v in vs])
        if keep.sum() >= 16 and 0 <= u - half and u + half < W:  # at least 8 rows
            out.append([u - half, float(np.ceil(vs[keep].min())), u + half, float(np.floor(vs[keep].max()))])
    return out
