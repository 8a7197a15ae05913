"""PhyGround's built-in cases: the 2-4 law rule, every law drawn at least twice, and renders that do what they
claim, measured on the pixels (liquid levels, mirror images, cast shadows) or on the motions they draw."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lawful.suites.phyground import scenes_fluid as F
from lawful.suites.phyground import scenes_optics as O
from lawful.suites.phyground import scenes_solid as S
from lawful.suites.phyground.cases import CASES, SCENES, CaseSpec, build_case, check_spec
from lawful.suites.phyground.scenes_common import G_PX, GROUND, WATER, WOOD
from lawful.suites.phyground.taxonomy import LAW_DOMAIN
from lawful.world.draw import Scene


def frame(name: str, t: float, law: str = "true"):
    d = SCENES[name]
    sc = Scene(640, 360)
    d.setup(sc)
    return d.frame(sc, t, law), sc


def level(img, x: int, top: float, bottom: float) -> float:
    """Sub-pixel liquid level in column ``x`` of a glass whose inside spans rows ``top``..``bottom``: each row's
    liquid share from its colour between the glass tint (read near the top) and the liquid drawn at 0.9."""
    col = img[int(top) + 3:int(bottom) + 1, x].astype(float)
    g, liq = col[0], np.asarray(WATER, float)
    cov = np.clip((col - g) @ (liq - g) / (0.9 * (liq - g) @ (liq - g)), 0, 1)
    return bottom - cov.sum()


# ----------------------------------------------------------------------------- the case set
def test_every_case_has_2_to_4_laws_and_every_law_is_drawn_twice():
    drawn = {k: 0 for k in LAW_DOMAIN}
    for c in CASES:
        check_spec(c)
        assert c.expected_outcome and c.source
        for k in c.laws if c.scene else ():
            drawn[k] += 1
    assert min(drawn.values()) >= 2, drawn
    assert len({c.id for c in CASES}) == len(CASES)
    with pytest.raises(ValueError, match="needs 2-4 distinct laws"):
        check_spec(CaseSpec("x", "p", "o", ("shadow",)))
    with pytest.raises(ValueError, match="unknown law"):
        check_spec(CaseSpec("x", "p", "o", ("shadow", "magnetism")))


def test_twins_share_the_first_frame_then_differ():
    for spec in (c for c in CASES if c.scene):
        a, _ = frame(spec.scene, 0.0, "true")
        b, _ = frame(spec.scene, 0.0, "anti")
        assert np.array_equal(a, b), spec.id
        late = np.abs(frame(spec.scene, 2.9, "true")[0].astype(int) - frame(spec.scene, 2.9, "anti")[0])
        assert late.max() > 60, spec.id


def test_build_case_carries_laws_domains_and_first_frame():
    spec = next(c for c in CASES if c.scene == "float_sink")
    case, img = build_case(spec)
    assert img.shape == (360, 640, 3) and case.criteria == list(spec.laws)
    assert case.known["domains"] == ["fluid", "solid_body"] and case.known["scene"] == "float_sink"
    assert spec.expected_outcome in case.prompt


# ----------------------------------------------------------------------------- fluids
def test_lowered_block_raises_the_level_by_the_displaced_area_over_the_width():
    w, h = F.LB_BLOCK
    x0, top, x1, bottom = F.LB_GLASS
    width = x1 - x0
    base = level(frame("lower_block", 0.0)[0], 265, top, bottom)
    assert base == pytest.approx(F.LB_LEVEL0, abs=0.5)
    for t in (1.4, 1.6, 1.8, 1.9, 2.9):
        img, _ = frame("lower_block", t)
        lv = level(img, 265, top, bottom)
        blk = F.lower_state(t, "true")["bottom"]
        submerged = min(max(blk - lv, 0.0), h)
        assert (F.LB_LEVEL0 - lv) == pytest.approx(w * submerged / width, abs=1.0), t  # within a pixel
    assert F.LB_LEVEL0 - lv == pytest.approx(w * h / width, abs=1.0)  # wholly under at the end: 21.4 px
    for t in (1.8, 2.9):  # the twin: the stone goes in and the level does not move; once let go it floats up
        assert level(frame("lower_block", t, "anti")[0], 265, top, bottom) == pytest.approx(base, abs=0.3)
    assert F.lower_state(2.9, "anti")["bottom"] < F.lower_state(2.0, "anti")["bottom"] - 15


def test_displaced_level_closed_form():
    # partly in: Δ = w (b - L0) / (W - w); wholly in: Δ = w h / W
    assert F.displaced_level(230, 140, 50, 60, 244) == pytest.approx(230 - 50 * 14 / 90)
    assert F.displaced_level(230, 140, 50, 60, 300) == pytest.approx(230 - 50 * 60 / 140)
    assert F.displaced_level(230, 140, 50, 60, 200) == 230
    assert F.segment_below(100, 10, 100) == pytest.approx(math.pi * 50)  # half a disc under the line


def test_pour_level_rises_at_flux_over_width_and_the_twin_leaks():
    x0, top, x1, bottom = F.POUR_GLASS
    st = F.pour_state(2.0, "true")
    rate = st["flux"] / (x1 - x0)  # px per s
    l1 = level(frame("pour_glass", 1.0)[0], 490, top, bottom)
    l3 = level(frame("pour_glass", 2.9)[0], 490, top, bottom)
    assert (l1 - l3) / 1.9 == pytest.approx(rate, rel=0.02)
    assert l1 == pytest.approx(F.POUR_LEVEL0 - rate * (1.0 - st["arrive"]), abs=0.5)
    anti, _ = frame("pour_glass", 2.9, "anti")  # column 392: clear of the twin's straight stream
    assert level(anti, 392, top, bottom) == pytest.approx(level(frame("pour_glass", 0.0)[0], 392, top, bottom),
                                                          abs=0.3)
    row = anti[int(GROUND) - 2, int(x1) + 6:int(x1) + 100].astype(int)
    assert ((row[:, 2] - row[:, 0]) > 100).sum() >= 90  # water outside the glass: a puddle 60 px/s long


def test_floating_wood_and_sinking_steel():
    x0, top, x1, bottom = F.FS_TANK_BOX
    ww, wh = F.FS_WOOD
    st = F.float_state(2.9, "true")
    img, _ = frame("float_sink", 2.9)
    lv = level(img, 190, top, bottom)
    assert lv == pytest.approx(st["level"], abs=0.5)
    assert st["wood_bottom"] - lv == pytest.approx(F.FS_DRAFT * wh, abs=0.5)  # floats 60 % under (settled)
    assert st["ball_bottom"] == bottom  # the steel ball is on the floor
    displaced = ww * F.FS_DRAFT * wh + math.pi * F.FS_BALL_R ** 2
    assert F.FS_LEVEL0 - lv == pytest.approx(displaced / (x1 - x0), abs=1.0)
    col = img[:, int(F.FS_WOOD_X)].astype(int)  # wood colour stands above the water for ~0.4 h
    dry = np.abs(col - np.asarray(WOOD)).sum(1) < 40
    assert dry[:int(lv)].sum() == pytest.approx((1 - F.FS_DRAFT) * wh, abs=2)
    anti = F.float_state(2.9, "anti")
    assert anti["level"] == F.FS_LEVEL0 and anti["wood_bottom"] == bottom  # wood sunk, level unmoved
    assert anti["ball_bottom"] - anti["level"] == pytest.approx(0.3 * 2 * F.FS_BALL_R, abs=0.1)  # steel floats
    early = [F.float_state(t, "true")["ball_bottom"] for t in (0.0, 0.1, 0.2)]
    assert early[2] - early[0] == pytest.approx(0.5 * G_PX * 0.04)  # free fall before the splash


def test_draining_tank_keeps_volume_and_its_jet_shortens():
    width = F.JET_TANK_BOX[2] - F.JET_TANK_BOX[0]
    for t in (0.5, 1.5, 2.5):
        a, b = F.jet_state(t - 1e-4, "true"), F.jet_state(t + 1e-4, "true")
        outflow = F.JET_HOLE * F.jet_state(t, "true")["speed"]
        assert (b["level"] - a["level"]) / 2e-4 * width == pytest.approx(outflow, rel=1e-3)  # W dL/dt = a v
    for t in (0.5, 2.5):
        st = F.jet_state(t, "true")
        assert st["speed"] == pytest.approx(math.sqrt(2 * G_PX * (F.JET_HOLE_Y - st["level"])))
        img, _ = frame("tank_jet", t)
        row = img[int(GROUND) - 1, 230:].astype(int)
        landing = 230 + np.nonzero((row[:, 2] - row[:, 0]) > 60)[0].max()
        assert landing == pytest.approx(F.JET_TANK_BOX[2] + st["range"], abs=3)
        assert level(img, 170, F.JET_TANK_BOX[1], F.JET_TANK_BOX[3]) == pytest.approx(st["level"], abs=0.5)
    assert F.jet_state(2.5, "true")["range"] < F.jet_state(0.5, "true")["range"]
    assert F.jet_state(2.5, "anti")["range"] > F.jet_state(0.5, "anti")["range"]
    assert F.jet_state(2.5, "anti")["level"] == F.JET_LEVEL0


def test_stream_on_block_fills_puddles_at_the_inflow_rate():
    x0, top, x1, _ = F.SB_BLOCK

    def puddle(img):
        row = img[int(GROUND) - 2, :int(x0)].astype(int)
        return ((row[:, 2] - row[:, 0]) > 60).sum()

    p2, p3 = puddle(frame("stream_block", 2.0)[0]), puddle(frame("stream_block", 2.9)[0])
    per_side = F.SB_W0 * F.SB_V0 / (2 * F.SB_PUDDLE)  # px per s
    assert (p3 - p2) / 0.9 == pytest.approx(per_side, abs=2.5)
    anti, _ = frame("stream_block", 2.9, "anti")
    assert puddle(anti) == 0  # the water vanishes
    inside = anti[int((top + GROUND) / 2), int(F.SB_TAP[0])].astype(int)
    assert inside[2] - inside[0] > 60  # ...after running straight through the block
    true_inside = frame("stream_block", 2.9)[0][int((top + GROUND) / 2), int(F.SB_TAP[0])].astype(int)
    assert true_inside[2] - true_inside[0] < 0


# ----------------------------------------------------------------------------- optics
def _centroid(weight):
    """Weighted centroid ``(x, y)`` and the count of clearly coloured pixels; a mirror keeps a fixed share of
    each pixel's colour contrast, so the weights of an image are the object's, scaled and flipped."""
    w = np.clip(weight - 20, 0, None).astype(float)  # the backdrop's faint tints weigh nothing
    ys, xs = np.indices(w.shape)
    return (w * xs).sum() / w.sum(), (w * ys).sum() / w.sum(), int((w > 60).sum())


def test_upright_mirror_image_is_the_balls_reflection():
    x0, y0, x1, y1 = O.MR_REGION
    for t in (0.5, 1.5, 2.5):
        img, _ = frame("mirror_roll", t)
        red = img[..., 0].astype(int) - img[..., 1]
        bx, _, _ = _centroid(red[:, :x0])
        ix, _, n = _centroid(red[y0:y1, x0:x1])
        assert bx == pytest.approx(O.mirror_roll_state(t, "true")["x"], abs=2.5)  # shading pulls it a little
        assert ix + x0 == pytest.approx(2 * O.MR_X - bx, abs=1.0) and n > 500
    xs = [O.mirror_roll_state(t, "anti") for t in (0.2, 0.5)]
    assert (xs[1]["x"] - xs[0]["x"]) * (xs[1]["image_x"] - xs[0]["image_x"]) > 0  # twin: image moves with it
    img, _ = frame("mirror_roll", 0.5, "anti")
    red = img[..., 0].astype(int) - img[..., 1]
    assert _centroid(red[y0:y1, x0:x1])[0] + x0 == pytest.approx(xs[1]["image_x"], abs=2.5)


def test_floor_mirror_image_rises_to_meet_the_falling_ball():
    x0, y0, x1, y1 = O.MD_REGION
    for t in (0.1, 0.25, 0.6):
        img, _ = frame("mirror_drop", t)
        blue = img[..., 2].astype(int) - img[..., 0]
        _, by, _ = _centroid(blue[:y0])
        _, iy, n = _centroid(blue[y0:y1, x0:x1])
        assert by == pytest.approx(O.mirror_drop_state(t, "true")["y"], abs=2.5)
        assert iy + y0 == pytest.approx(2 * O.MD_FLOOR - by, abs=1.0) and n > 500
    a, b = O.mirror_drop_state(0.1, "anti"), O.mirror_drop_state(0.3, "anti")
    assert b["y"] > a["y"] and b["image_y"] > a["image_y"]  # the twin's image moves down with the ball


def _tangent_far_end(lamp, x, y, r):
    """Where the lamp's ray grazing the far side of the ball meets the floor (closed form)."""
    dx, dy = x - lamp[0], y - lamp[1]
    d = math.hypot(dx, dy)
    ang = math.atan2(dy, dx)
    hits = []
    for s in (1, -1):
        a = ang + s * math.asin(r / d)
        hits.append(lamp[0] + (GROUND - lamp[1]) / math.tan(a) if math.sin(a) > 0 else math.inf)
    return max(hits, key=lambda h: abs(h - lamp[0]) if math.isfinite(h) else -1)


@pytest.mark.parametrize("name,state,lamp", [("lamp_roll", O.lamp_roll_state, O.LR_LAMP),
                                             ("lamp_drop", O.lamp_drop_state, O.LD_LAMP)])
def test_shadow_falls_away_from_the_lamp(name, state, lamp):
    for t in (0.5, 1.0, 2.0):
        for law in ("true", "anti"):
            img, sc = frame(name, t, law)
            st = state(t, law)
            band = slice(int(GROUND) + 2, int(GROUND) + 7)
            dark = ((sc.static_layer[band].astype(int).sum(2) - img[band].astype(int).sum(2)) > 60).any(0)
            cols = np.nonzero(dark)[0]
            assert cols.min() == pytest.approx(st["shadow"][0], abs=1.0)
            assert cols.max() == pytest.approx(st["shadow"][1], abs=1.0)
            bx = st.get("x", O.LD_X)
            away = np.sign(np.mean(st["shadow"]) - bx) == np.sign(bx - lamp[0])
            assert away == (law == "true"), (t, law)
        st = state(t, "true")
        by = st.get("y", GROUND - O.LR_R)
        far = _tangent_far_end(lamp, st.get("x", O.LD_X), by, O.LR_R)
        near_far = st["shadow"][1] if far > lamp[0] else st["shadow"][0]
        assert near_far == pytest.approx(far, abs=0.25)
    assert state(0.0, "true")["shadow"] is None  # the lamp is still off in the shared first frame


# ----------------------------------------------------------------------------- solid bodies
def test_heavy_light_collision_keeps_momentum_and_energy_only_when_true():
    m = S.MASS_RATIO
    before = S.heavy_light_motion(0.0, "true")["v"]
    for law, keeps in (("true", True), ("anti", False)):
        v1, v2 = S.heavy_light_motion(2.9, law)["v"]
        p_ok = math.isclose(m * v1 + v2, m * before[0], rel_tol=1e-9)
        e_ok = math.isclose(m * v1 ** 2 + v2 ** 2, m * before[0] ** 2, rel_tol=1e-9)
        assert p_ok == keeps and e_ok == keeps
    x1, x2 = S.heavy_light_motion(2.9, "true")["x"]
    assert x2 - x1 > S.HEAVY + S.LIGHT  # they separate after contact


def test_clay_flattens_rubber_bounces_and_the_twin_swaps_them():
    items = S._scene_clay_rubber(2.9, "true")
    assert items[0].__class__.__name__ == "Sphere" and items[1].b < 0.5 * items[1].a  # clay pancake
    assert S._scene_clay_rubber(0.2, "true")[1].y - 70.0 == pytest.approx(0.5 * G_PX * 0.04)  # free fall
    anti = S._scene_clay_rubber(2.9, "anti")
    assert anti[0].__class__.__name__ == "Blob" and anti[1].__class__.__name__ == "Sphere"
    ys = [S._scene_clay_rubber(t, "anti")[1].y for t in (0.1, 0.2, 0.3)]
    assert ys[1] - ys[0] == pytest.approx(ys[2] - ys[1])  # constant speed: no gravity


def test_glass_pane_shatters_and_the_twin_gains_height():
    assert len(S._scene_glass_pane(0.1, "true")) == 1 and len(S._scene_glass_pane(2.0, "true")) == 7
    tops = [S._scene_glass_pane(t, "anti")[0].y for t in np.linspace(0.7, 2.9, 200)]
    assert len(S._scene_glass_pane(2.0, "anti")) == 1 and min(tops) < 80.0  # rebounds above its start
