"""P20 refraction and total internal reflection: M1 on known numbers, hand-made readings, rendered reference and twin."""

import math

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p20_total_internal_reflection import TotalInternalReflection, beam_frame, index_metric
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world import optics


def _pair(th_w_deg, n, p=(300.0, 150.0)):
    """Water-side and air-side lines at entry ``p`` for incidence ``th_w_deg`` in water of index ``n``."""
    tw = math.radians(th_w_deg)
    d_in = np.array([math.sin(tw), -math.cos(tw)])  # upwards to the right
    d_out = optics.refract(d_in, [0, 1], n, 1.0)
    p = np.asarray(p, float)
    return (p - 50 * d_in, d_in), (None if d_out is None else (p + 50 * d_out, d_out))


def test_metric_formulas():
    two = {"0": [1.2] * 10, "1": [1.4] * 10}  # two beams, two indices: CV = 0.1 / 1.3, no local noise
    m = index_metric(two, [])
    assert m.residual == pytest.approx(0.1 / 1.3, rel=1e-9) and m.value == pytest.approx(q(0.1 / 1.3, 0.05))
    same = {"0": [1.333] * 10, "1": [1.333, math.nan] * 5}
    assert index_metric(same, [1.2, 1.3]).residual == pytest.approx(0, abs=1e-12)  # bounds below n: allowed
    m = index_metric(same, [1.6])  # a total reflection that n = 1.333 forbids counts as n >= 1.6
    vals = np.r_[[1.333] * 15, 1.6]
    assert m.residual == pytest.approx(vals.std() / vals.mean(), rel=1e-9) and m.components["forbidden_reflections"] == 1
    assert index_metric({"0": [1.3, 1.3]}, []).status == "operational_zero"
    rng = np.random.default_rng(2)
    noisy = {str(k): list(1.333 + rng.normal(0, 0.004, 60)) for k in range(4)}  # pure noise is taken out
    assert index_metric(noisy, []).residual < 0.001


def test_index_metric_takes_out_the_fits_own_error():
    """A per-beam offset that stays from frame to frame (a compression block on a still beam) is invisible to the
    frame-to-frame noise; the lines' fit errors say how large it may be, and that much spread is taken out."""
    offsets = (-0.006, 0.004, -0.002, 0.005)
    fixed = {str(k): [1.333 + o] * 40 for k, o in enumerate(offsets)}
    e = float(np.std([1.333 + o for o in offsets]) / np.mean([1.333 + o for o in offsets]))
    assert index_metric(fixed, []).residual == pytest.approx(e, rel=1e-6)  # no fit errors: all of it counts
    sds = {k: [0.005] * 40 for k in fixed}
    assert index_metric(fixed, [], sds).residual == pytest.approx(0.0, abs=1e-12)  # within the fits' error
    small = {k: [0.002] * 40 for k in fixed}
    want = math.sqrt(float(np.var([1.333 + o for o in offsets])) - 0.002**2) / np.mean([1.333 + o for o in offsets])
    assert index_metric(fixed, [], small).residual == pytest.approx(want, rel=1e-6)


def test_beam_frame_on_known_lines():
    for th in (15.0, 30.0, 45.0):
        inc, out = _pair(th, 1.333)
        assert beam_frame(inc, out)[0] == pytest.approx(1.333, abs=1e-9)
    # propagated error: dn = n (cot θa dθa - cot θw dθw), independent errors add in quadrature
    inc, out = _pair(30.0, 1.333)
    ta = math.asin(1.333 * 0.5)
    want = 1.333 * math.hypot(0.002 / math.tan(ta), 0.001 / math.tan(math.radians(30)))
    assert beam_frame(inc, out, 0.001, 0.002)[1] == pytest.approx(want, rel=1e-9)
    assert _pair(55.0, 1.333)[1] is None  # beyond the critical angle


def test_extract_refractions_and_reflections():
    task = TotalInternalReflection()
    case, _ = task.make_case(0, 5)
    ths = np.linspace(20, 60, 9)
    T = len(ths)
    tr = Tracks.empty([], T, fps=24.0)
    for j in range(4):
        cols = {"in": [], "out": [], "back": []}
        for th in ths:
            inc, out = _pair(th, 1.333)
            cols["in"].append(inc)
            cols["out"].append(out)
            cols["back"].append(None if out is not None else inc)  # a reflection is read when no refraction is
        for part, lines in cols.items():
            x = [np.nan if v is None else v[0][0] for v in lines]
            y = [np.nan if v is None else v[0][1] for v in lines]
            a = [np.nan if v is None else math.atan2(v[1][1], v[1][0]) for v in lines]
            tr.regions[f"{part}_{j}"] = RegionSeries.from_values(f"{part}_{j}", "line", x=x, y=y, angle=a)
    tr.regions["surface"] = RegionSeries.from_values("surface", "level", row=[150.0] * T)
    m = task.measure(case, tr)
    n_refr = int(np.sum(ths < math.degrees(optics.critical_angle(1.333, 1.0))))
    assert m.get("total_reflections") == 4 * (T - n_refr)
    got = task.metrics(case, m)["M1"]
    assert got.residual == pytest.approx(0, abs=1e-9) and got.components["refractions"] == 4 * n_refr


def test_reference_and_twin_end_to_end(tmp_path):
    task = TotalInternalReflection()
    case, _ = task.make_case(0, 1006)
    case = case.model_copy(update={"duration": 1.0})
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P20"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 95
    assert P["true"] >= 95
    assert P["anti"] < 60


def test_crossing_gap_gives_the_lines_shared_direction_error():
    """In and out lines of a beam must meet the surface at one point; a gap of Δ px between their crossings is
    each line off by Δ/√2 px there, a turn of Δ sin²a / (√2 |row − y|) about its centroid."""
    from lawful.suites.wmle.p20_total_internal_reflection import _crossing_sd

    T, row, gap = 6, 150.0, 0.8
    tr = Tracks.empty([], T, fps=24.0)
    inc, out = _pair(30.0, 1.333)
    for part, (p, d), dx in (("in", inc, 0.0), ("out", out, gap)):
        a = math.atan2(d[1], d[0])
        tr.regions[f"{part}_0"] = RegionSeries.from_values(f"{part}_0", "line", x=[p[0] + dx] * T, y=[p[1]] * T,
                                                           angle=[a] * T)
    tr.regions["surface"] = RegionSeries.from_values("surface", "level", row=[row] * T)
    got = _crossing_sd(tr, 0)
    for part, (p, d) in (("in", inc), ("out", out)):
        a = math.atan2(d[1], d[0])
        want = gap * math.sin(a) ** 2 / (math.sqrt(2) * abs(row - p[1]))
        assert got[part] == pytest.approx(np.full(T, want), rel=1e-9)
    tr.regions["out_0"] = RegionSeries.from_values("out_0", "line", x=[out[0][0]] * T, y=[out[0][1]] * T,
                                                   angle=[math.atan2(out[1][1], out[1][0])] * T)
    assert np.allclose(_crossing_sd(tr, 0)["in"], 0.0, atol=1e-9)  # lines that meet: no shared error


def test_index_metric_weights_readings_and_claims_no_spread_the_noise_makes_by_chance():
    """Readings weigh 1/sd²; a spread of the beams' means within k·σ_b²·√(2/(K−1)) of their stated error σ_b² (what
    four noisy means scatter by) is not claimed; beyond it the plain excess counts."""
    from lawful.perceive.noise import k_for
    from lawful.suites.wmle.p20_total_internal_reflection import _noise_var, _weights

    # one beam's frames: good ones at the truth, poor ones (sd 10x) far off: the weighted mean stays near the truth
    v = np.r_[[1.333] * 20, [1.5] * 4]
    sd = np.r_[[0.002] * 20, [0.02] * 4]
    w = _weights(v, sd)
    assert np.average(v, weights=w) == pytest.approx((20 * 1.333 / 0.002**2 + 4 * 1.5 / 0.02**2)
                                                     / (20 / 0.002**2 + 4 / 0.02**2), rel=1e-12)
    assert np.isnan(_weights(v, None)).all()  # no errors stated: equal weights
    # four beams with constant offsets and stated sd s: within 0, between s², chance s² √(2/3)
    s, K = 0.01, 4
    offsets = np.array([-1.0, 1.0, -1.0, 1.0])
    sig2, chance = _noise_var({str(k): np.full(30, 1.333 + o * s) for k, o in enumerate(offsets)},
                              {str(k): np.full(30, 1 / s**2) for k in range(K)})
    assert sig2 == pytest.approx(s**2, rel=1e-9) and chance == pytest.approx(s**2 * math.sqrt(2 / 3), rel=1e-9)
    floor = s**2 * (1 + k_for() * math.sqrt(2 / 3))  # the largest spread of the means left unclaimed
    for spread in (0.9 * math.sqrt(floor), 1.1 * math.sqrt(floor)):  # means at ±spread: variance spread²
        n = {str(k): [1.333 + o * spread] * 30 for k, o in enumerate(offsets)}
        got = index_metric(n, [], {k: [s] * 30 for k in n})
        want = 0.0 if spread**2 <= floor else math.sqrt(spread**2 - s**2) / 1.333
        assert got.residual == pytest.approx(want, abs=1e-12)
    assert got.components["e1_floor"] == pytest.approx(math.sqrt(k_for() * s**2 * math.sqrt(2 / 3)) / 1.333)
    s = 0.05  # lines this poor could hide a spread beyond the tolerance: no verdict, not a confident 1
    noisy = index_metric(n, [], {k: [s] * 30 for k in n})
    assert noisy.status == "operational_zero" and noisy.components["e1_floor"] > 0.05


def test_noise_that_stays_several_frames_is_taken_out_and_the_twin_still_fails():
    """Errors held for 6 frames (a stale compression block) barely show about a 5-sample quadratic; about one
    quadratic over the beam's frames they do. One index with such errors scores ~1; four indices (the twin) do not."""
    rng = np.random.default_rng(4)

    def held(n0):
        return list(n0 + np.repeat(rng.normal(0, 0.02, 8), 6))  # 48 frames, a new error every 6

    law = {str(k): held(1.333) for k in range(4)}
    sds = {k: [0.01] * 48 for k in law}  # the lines' fits state half the real error
    assert index_metric(law, [], sds).residual == pytest.approx(0.0, abs=1e-12)
    twin = {str(k): held(1.333 * f) for k, f in enumerate((0.88, 1.0, 1.12, 1.24))}
    e = float(np.std(1.333 * np.array([0.88, 1.0, 1.12, 1.24])) / np.mean(1.333 * np.array([0.88, 1.0, 1.12, 1.24])))
    assert index_metric(twin, [], sds).residual == pytest.approx(e, rel=0.1)


def test_an_air_line_that_does_not_start_where_the_beam_enters_is_no_refraction():
    """Studio seed 8500 under noise: once a beam had turned to total reflection, its air region read a stand's
    vertical edge crossing the surface 103 px from the entry point; taken for refractions, n = 0.005 in 23 frames and
    the lawful clip scored 19. The air line must cross the surface where the water line does (within k robust sds of
    the beam's gaps, at least half a pixel): those frames are no refraction, and n stays 1.333 (the gaps of the
    beam's true refractions, 0.3 px of jitter, keep every one of them)."""
    task = TotalInternalReflection()
    case, _ = task.make_case(0, 5)
    ths = np.linspace(20, 40, 16)
    T = len(ths)
    rng = np.random.default_rng(8)
    tr = Tracks.empty([], T, fps=24.0)
    for j in range(4):
        cols = {"in": [], "out": []}
        for i, th in enumerate(ths):
            inc, out = _pair(th, 1.333)
            if j == 0 and i >= 10:  # the beam's last 6 frames: a vertical edge 100 px away read in the air region
                out = (np.array([400.0, 100.0]), np.array([0.0, -1.0]))
            else:
                out = (out[0] + [rng.normal(0, 0.3), 0.0], out[1])
            cols["in"].append(inc)
            cols["out"].append(out)
        for part, lines in cols.items():
            tr.regions[f"{part}_{j}"] = RegionSeries.from_values(
                f"{part}_{j}", "line", x=[v[0][0] for v in lines], y=[v[0][1] for v in lines],
                angle=[math.atan2(v[1][1], v[1][0]) for v in lines])
        tr.regions[f"back_{j}"] = RegionSeries.from_values(f"back_{j}", "line", x=[np.nan] * T, y=[np.nan] * T,
                                                           angle=[np.nan] * T)
    tr.regions["surface"] = RegionSeries.from_values("surface", "level", row=[150.0] * T)
    m = task.measure(case, tr)
    n0 = np.array([np.nan if v is None else v for v in m.notes["n"]["0"]])
    assert np.isnan(n0[10:]).all() and np.isfinite(n0[:10]).all()
    assert all(np.isfinite([np.nan if v is None else v for v in m.notes["n"][str(j)]]).all() for j in (1, 2, 3))
    assert m.get("n_mean") == pytest.approx(1.333, abs=0.01) and m.get("total_reflections") == 0
