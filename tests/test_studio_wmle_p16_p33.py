"""Studio scenes of the WMLE region-reading tasks: what is drawn is what the case says.

Each scene is built at a small frame size with one blur sub-frame (a pipeline check, not a
validation): the task's own probes read the rendered clip (the same region reader the evaluator
uses) and the readings must agree with the projected 3-D geometry the case states, within the
readings' own standard error plus the sub-pixel slack of a small frame; the twin must break the law
by about what it says.
"""

import numpy as np
import pytest

from studio_support import E, check_case, one_subframe  # noqa: F401 (GL set-up, or skip the module)

from lawful.perceive.regions import Reader  # noqa: E402
from lawful.suites.base import get_suite  # noqa: E402
from lawful.world.studio import StudioStyle  # noqa: E402
from lawful.world.studio import _wmle_p08_p15 as C  # noqa: E402

SEED = 1000


@pytest.fixture
def small(monkeypatch, one_subframe):  # noqa: F811
    """Every scene at 320×180 (the scenes pick their frame from ``C.VARIANTS`` by index) and 6 frames a second."""
    from lawful.world.studio import scenes_wmle_p16_p19, scenes_wmle_p21_p23, scenes_wmle_p29

    monkeypatch.setattr(C, "VARIANTS", (C.Variant("small", (320, 180), 0.84),))
    for mod in (scenes_wmle_p16_p19, scenes_wmle_p21_p23, scenes_wmle_p29):
        monkeypatch.setattr(mod, "FPS", 6.0)


def _make(task: str, index: int = 0):
    return StudioStyle().make("wmle", task, index, SEED)


def _read(sc, law: str, last: int | None = None, first_only: bool = False):
    """The task's probes read over the clip (or its last ``last`` frames, or only its first frame for a still
    scene): ``{probe: RegionSeries}``."""
    probes = get_suite("wmle").task(sc.case.task).probes(sc.case)
    gen = sc.render(law)
    frames = [next(gen)] if first_only else list(gen)
    gen.close()
    rd = Reader(probes, (sc.case.width, sc.case.height), 1.0, 1.0, margin=False)
    rd.add(frames[0])  # first frame: what the media look like
    for f in frames[-(last or len(frames) - 1):]:
        rd.add(f)
    return rd.read(None)


def _end(series, key="row", n=3):
    ok = series.ok[-n:]
    assert ok.all(), f"{series.name} unreadable at the end"
    return float(np.median(series[key][-n:])), float(np.median(series.sigma[-n:]))


def test_communicating_vessels_levels_are_the_projected_surfaces(small, tmp_path):
    sc = _make("communicating_vessels")
    check_case(sc, tmp_path)
    q = sc.case.truth.quantities
    law = _read(sc, "true", last=3)
    (yl, sl), (yr, sr) = _end(law["arm_left"]), _end(law["arm_right"])
    # a level camera sees each surface within about one px of its axis point's row (the rim's perspective)
    assert yl == pytest.approx(q["left_row_end"], abs=1.2 + 3 * sl)
    assert yr == pytest.approx(q["right_row_end"], abs=1.2 + 3 * sr)
    anti = _read(sc, "anti", last=3)
    gap = _end(anti["arm_left"])[0] - _end(anti["arm_right"])[0]
    # the twin's left level ends anti_offset_px above (smaller row) the right one, grown in over the clip
    assert -gap == pytest.approx(sc.case.known["anti_offset_px"], rel=0.15)


def test_floating_ice_reads_the_archimedes_share(small, tmp_path, monkeypatch):
    from lawful.suites.wmle.p22_floating_ice import DRAFT

    # 8.3 % of the column stands above the water: a few px more than 320×180 shows
    monkeypatch.setattr(C, "VARIANTS", (C.Variant("small", (480, 270), 0.84),))
    sc = _make("floating_ice")
    check_case(sc, tmp_path)
    q = sc.case.truth.quantities
    r = _read(sc, "true", last=3)
    rows = {k: _end(r[k]) for k in ("water_left", "water_right", "ice_top", "ice_bottom")}
    for k, want in (("water_left", "waterline_row_end"), ("water_right", "waterline_row_end"),
                    ("ice_top", "ice_top_row_end"), ("ice_bottom", "ice_bottom_row_end")):
        assert rows[k][0] == pytest.approx(q[want], abs=1.0 + 3 * rows[k][1]), k
    top, bot = rows["ice_top"][0], rows["ice_bottom"][0]
    share = (bot - 0.5 * (rows["water_left"][0] + rows["water_right"][0])) / (bot - top)
    assert share == pytest.approx(DRAFT, abs=0.03)


def test_surface_gravity_surface_is_level_in_the_world(small, tmp_path):
    sc = _make("surface_gravity")
    case = sc.case
    assert get_suite("wmle").task("surface_gravity").case_problem(case) == ""
    (x0, y0), (x1, y1) = case.known["surface_ends_px"]
    slope = (y1 - y0) / (x1 - x0)  # the level surface as the (possibly rolled) camera shows it
    for law, tilt in (("true", 0.0), ("anti", case.known["anti_tilt_deg"])):
        r = _read(sc, law, last=2)
        xs, ys = [], []
        for i, b in enumerate(case.known["surface_bands"]):
            s = r[f"surface_{i}"]
            if s.ok.all():
                xs.append(0.5 * (np.floor(b[0]) + np.ceil(b[2])))
                ys.append(float(np.median(s["row"])))
        assert len(xs) >= 5
        fit = np.polyfit(xs, ys, 1)[0]
        turn = np.degrees(np.arctan(fit) - np.arctan(slope))
        # about the camera's roll for the law; the twin is turned by its tilt (perspective shortens it a little)
        assert abs(turn) == pytest.approx(abs(tilt), abs=1.5 + 0.15 * abs(tilt))
    x, y = np.array(case.truth.tracks["ball"][0][1:])
    bx0, by0, bx1, by1 = case.objects[0].box
    assert bx0 <= x <= bx1 and by0 <= y <= by1


def _line(series):
    """The line read in a still scene's first frame: ``(point, unit direction)``."""
    assert series.ok[0], f"{series.name} not read"
    a = float(series["angle"][0])
    return np.array([series["x"][0], series["y"][0]]), np.array([np.cos(a), np.sin(a)])


def test_mirror_reflection_angles_equal_and_twin_turned(small):
    from lawful.suites.wmle.p18_mirror_reflection import reflection_frame

    sc = _make("mirror_reflection")
    k = sc.case.known
    for law, want in (("true", 0.0), ("anti", abs(k["anti_delta_deg"]))):
        r = _read(sc, law, first_only=True)
        th_i, th_r, err = reflection_frame(_line(r["incident"]), _line(r["reflected"]), _line(r["mirror"]),
                                           float(r["mirror"]["rms"][0]))
        assert th_i == pytest.approx(k["theta_i_deg"], abs=2.0)
        assert abs(th_r - th_i) == pytest.approx(want, abs=2.0)
        assert err < 3.0  # the reflected ray leaves from the contact (px)


def test_refraction_follows_snell_and_twin_uses_its_index(small):
    from lawful.suites.wmle.p17_refraction import N_WATER

    sc = _make("refraction")
    k = sc.case.known
    for law, n_idx in (("true", N_WATER), ("anti", k["anti_n"])):
        r = _read(sc, law, first_only=True)
        row, sig = float(r["surface"]["row"][0]), float(r["surface"].sigma[0])
        assert row == pytest.approx(k["surface_y"], abs=1.0 + 3 * sig)  # seen edge-on: the contact's row
        (_, di), (_, dr) = _line(r["incident"]), _line(r["refracted"])
        sin_i, sin_r = abs(di[0]), abs(dr[0])  # angles from the vertical normal
        assert sin_i / max(sin_r, 1e-9) == pytest.approx(n_idx, abs=0.06)


def test_concurrent_shadows_meet_at_the_lamp_foot(small):
    from lawful.suites.wmle.p19_concurrent_shadows import NAMES, shadows_frame

    sc = _make("concurrent_shadows")
    for law in ("true", "anti"):
        r = _read(sc, law, first_only=True)
        rms, spread, x = shadows_frame([_line(r[nm]) for nm in NAMES])
        if law == "true":
            assert rms < 2.5 and np.hypot(*(x - sc.case.known["lamp"])) < 5.0, (rms, x)
        else:
            assert rms > 6.0


def test_cross_ratio_scene_is_projective_and_rigid(small, tmp_path):
    from lawful.world import optics

    sc = _make("cross_ratio")
    check_case(sc, tmp_path, colour_at_centre=lambda o: True)
    tr = np.array([sc.case.truth.tracks[o.id] for o in sc.case.objects], float)  # [4, T, 3]
    chi = [optics.cross_ratio(optics.collinear_positions(tr[:, i, 1:])[0]) for i in range(tr.shape[1])]
    assert np.ptp(chi) < 1e-3 * np.mean(chi)  # the projected markers keep their cross-ratio
    gaps = np.diff(tr[:, :, 1:], axis=0)
    ratio = np.hypot(*gaps[0].T) / np.hypot(*gaps[2].T)
    assert np.ptp(ratio) > 0.03  # yet their image spacings change (perspective)
    for o, t in zip(sc.case.objects, tr):
        x0, y0, x1, y1 = o.box
        assert x0 <= t[0, 1] <= x1 and y0 <= t[0, 2] <= y1


def test_eddy_braking_magnet_lags_and_twin_leads(small, tmp_path):
    """P29 end to end at 320×180, 6 fps: the evaluator's indicators are 1 on the law clip, 0 on the twin."""
    from lawful.runner.evaluate import evaluate_video, task_for
    from lawful.video import write_video

    sc = _make("eddy_braking")
    check_case(sc, tmp_path)
    tr = {o: np.array(sc.case.truth.tracks[o], float) for o in ("magnet", "block")}
    for o in tr:  # the projected truth starts inside the object's box
        x0, y0, x1, y1 = next(b.box for b in sc.case.objects if b.id == o)
        assert x0 <= tr[o][0, 1] <= x1 and y0 <= tr[o][0, 2] <= y1
    for law, want in (("true", 1.0), ("anti", 0.0)):
        video = write_video(tmp_path / f"{law}.mp4", list(sc.render(law)), fps=sc.case.fps)
        score = evaluate_video(sc.case, video, task_for(sc.case)).scores["P29"]
        assert score.status == "scored", score.reason
        assert score.metrics["M1"] == want and score.metrics["M2"] == want, score.metrics
