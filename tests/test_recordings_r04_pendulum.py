"""R4 one pendulum: the finite-amplitude factor, periods and fits on swings of known parameters (free and striking
a wall), the metric formulas, law ≫ each anti twin end to end, the case check at load, unmeasurable clips."""

import json
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lawful.case import CaseError, load_case
from lawful.perceive import noise
from lawful.runner.validate import validate_variant
from lawful.score.wmle import q
from lawful.suites.recordings import _oscillation as osc
from lawful.suites.recordings.common import beyond_noise
from lawful.suites.recordings._swings import amplitude_factor, wall_periods, wall_side
from lawful.suites.recordings.r04_pendulum import A_LENGTH, A_PERIOD, A_RESID, Pendulum
from lawful.world.scenes.recordings import damped_swing
from lawful.suites.wmle import _pendulums as pk
from lawful.tracks import Tracks
from lawful.world.physics import pendulum_period

K = noise.k_for()


def test_amplitude_factor_is_the_exact_period_ratio():
    for deg in (0.0, 10.0, 30.0, 60.0):
        want = pendulum_period(1.0, math.radians(deg), 9.81) / pendulum_period(1.0, 0.0, 9.81)
        assert float(amplitude_factor(math.radians(deg))) == pytest.approx(want, rel=1e-12)
    # undamped swing: back at the release angle after one exact period
    T = pendulum_period(0.7, math.radians(25), 9.81)
    th, _ = damped_swing(np.array([0.0, T / 2, T]), 0.7, math.radians(25), 9.81, 0.0)
    assert th == pytest.approx([math.radians(25), -math.radians(25), math.radians(25)], abs=1e-7)


def test_weighted_spread_and_trend_formulas():
    cv, se, m, se_m = osc.weighted_spread([1.0, 1.1, 0.9], [0.01, 0.01, 0.01])
    assert m == pytest.approx(1.0) and cv == pytest.approx(math.sqrt(0.02 / 3))
    assert se == pytest.approx(math.sqrt(2 * 1e-4 / 3)) and se_m == pytest.approx(0.01 / math.sqrt(3))
    A = np.radians([30.0, 20.0, 10.0])
    rel, se = osc.amplitude_trend(1.5 * (1 + 0.2 * A**2), [1e-3] * 3, A)
    assert rel == pytest.approx(0.2 * np.ptp(A**2) / 1.0) and se > 0


def _drawn_tracks(task, case, law="true", sigma=0.3, seed=0, keep=None):
    p = case.known["pendulum"]
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    x, y = pk.bob_position(p, task._angles(case, t, law))
    rng = np.random.default_rng(seed)
    x, y = x + rng.normal(0, sigma, len(t)), y + rng.normal(0, sigma, len(t))
    tracks = Tracks.from_positions(t, {"bob": (x, y)}, p["radius_px"])
    if keep is not None:
        tracks.visible[~keep, 0] = False
        tracks.xy[~keep, 0] = np.nan
    return tracks


def test_extraction_on_a_drawn_damped_swing_recovers_period_and_release():
    task = Pendulum()
    case, _ = task.make_case(0, 1002)
    m = task.measure(case, _drawn_tracks(task, case, seed=4))
    truth = case.truth.quantities
    assert abs(m.get("period_s") - truth["period_s"]) <= K * m.get("period_se_s") + 1e-4
    rel = next(e for e in m.events if e.name == "release")
    assert rel.t == pytest.approx(truth["release_s"], abs=1.5 / case.fps)
    assert len(m.notes["T0"]) >= 6 and m.notes["wall"]["side"] == 0
    assert m.get("fit_rms_px") == pytest.approx(0.3, rel=0.3)  # the noise put in, nothing of the model
    s = task.metrics(case, m)
    assert set(s) == {"M1", "M2", "M3", "M4"} and min(v.value for v in s.values()) > 0.98, s


@pytest.mark.parametrize("seed", [1000, 1001, 1002, 1003])  # chirp, amplitude, period, turning
def test_law_beats_every_anti_twin_end_to_end(seed):
    r = validate_variant("recordings", "pendulum", 0, seed)["columns"]["R4"]
    assert r["law"] >= 97 and r["law_C"] >= 80
    assert r["anti"] < 90 and r["law"] - r["anti"] > 10


def _wall_swing(L_m=0.55, theta0=-0.45, wall=-0.06, e=0.7, gamma=0.05, duration=9.0, chirp=0.0, wobble=0.0):
    """A pendulum beside a wall at angle ``wall`` (beyond the free equilibrium 0): restitution ``e``. Twins:
    ``chirp`` the clock runs slower towards the end (period up by that fraction); ``wobble`` its rate swings by
    ± that fraction every 2.3 s."""
    g = 9.81
    w2 = g / L_m

    def rhs(_, y):
        return (y[1], -w2 * math.sin(y[0]) - 2 * gamma * y[1])

    def hit(_, y):
        return y[0] - wall

    hit.terminal, hit.direction = True, 1
    ts, ths, t0, y0 = [], [], 0.0, (theta0, 0.0)
    while t0 < duration:
        sol = solve_ivp(rhs, (t0, duration), y0, events=hit, dense_output=True, rtol=1e-10, atol=1e-12)
        ts.append(sol), ths.append(t0)
        if not sol.t_events[0].size:
            break
        t0 = float(sol.t_events[0][0])
        v = float(sol.y_events[0][0][1])
        if abs(v) < 1e-3:
            break
        y0 = (wall - 1e-9, -e * v)
    t = np.arange(0, duration, 1 / 30.0)
    tau = t if not chirp else duration / chirp * np.log1p(chirp * t / duration)
    tau = tau + wobble * 2.3 / (2 * math.pi) * np.sin(2 * math.pi * t / 2.3)
    th = np.full(len(t), wall)
    for sol, a in zip(ts, ths):
        sel = (tau >= a) & (tau <= sol.t[-1])
        if sel.any():
            th[sel] = sol.sol(tau[sel])[0]
    return t, th, 2 * math.pi / math.sqrt(w2 - gamma**2)


def test_wall_arcs_give_one_period_though_the_impact_intervals_shrink():
    t, th, T = _wall_swing()
    rng = np.random.default_rng(2)
    L, sig = 400.0, 0.3
    x, y = 300 + L * np.sin(th) + rng.normal(0, sig, len(t)), 60 + L * np.cos(th) + rng.normal(0, sig, len(t))
    s = np.arctan2(x - 300, y - 60)
    sig_th = noise.sigma(s)
    case = Pendulum().make_case(0, 1000)[0]
    case.known.pop("wall", None)
    side, how = wall_side(case, s, x, sig_th)
    assert (side, how) == (1, "detected")
    sw = wall_periods(t, s, sig_th, side)
    gaps = np.diff(sw["impacts"])
    assert gaps[0] > gaps[-1] + 3  # the arcs shorten as the amplitude decays
    assert sw["c"] == pytest.approx(0.0, abs=3 * sig_th)  # the free equilibrium, beyond the wall
    T0, se = np.array(sw["T0"]), np.array(sw["se"])
    assert len(T0) >= 5 and np.all(np.abs(T0 - T) <= K * se + 2e-4)
    cv, se_cv, _, _ = osc.weighted_spread(T0, se)
    assert q(beyond_noise(cv, se_cv), A_PERIOD) > 0.98
    # the same wall with a clock whose rate wobbles: the arcs no longer agree
    t, th, _ = _wall_swing(wobble=0.15)
    sw = wall_periods(t, th + rng.normal(0, sig / L, len(t)), sig_th, 1)
    cv, se_cv, _, _ = osc.weighted_spread(sw["T0"], sw["se"])
    assert cv - K * se_cv > 0.03
    # a steady slow-down is taken up by the equilibrium (the arcs alone cannot tell them apart): it shows as an
    # equilibrium away from the pivot's vertical
    t, th, _ = _wall_swing(chirp=0.3)
    sw = wall_periods(t, th + rng.normal(0, sig / L, len(t)), sig_th, 1)
    assert abs(sw["c"]) > 10 * sig_th


def test_metric_formulas():
    task = Pendulum()
    case, _ = task.make_case(0, 1000)
    m = task.measure(case, _drawn_tracks(task, case, seed=1))
    m.quantities.update(period_cv=0.05, period_cv_se=0.004, fit_rms_px=3.0, amplitude_px=100.0)
    m.notes["noise_px"] = 0.5
    s = task.metrics(case, m)
    assert s["M1"].value == pytest.approx(q(0.05 - K * 0.004, A_PERIOD))
    assert s["M3"].value == pytest.approx(q((3.0 - K * 0.5) / 100.0, A_RESID))
    T = m.get("period_s")
    Tp = 2 * math.pi * math.sqrt(case.known["length_m"] / 9.81)
    assert s["M4"].components["raw"] == pytest.approx(T / Tp - 1)
    assert s["M4"].value == pytest.approx(q(beyond_noise(T / Tp - 1, m.get("period_se_s") / Tp), A_LENGTH))
    case.known.pop("length_m")
    case.object("bob").known.pop("length_m")
    assert task.metrics(case, m)["M4"].status == "undefined"  # no length in metres, no comparison


def test_a_case_without_the_pivot_fails_at_load_naming_the_field(tmp_path):
    c = {"schema_version": 2, "id": "p", "suite": "recordings", "task": "pendulum", "width": 360, "height": 640,
         "objects": [{"id": "bob", "shape": "sphere", "color": [190, 40, 45], "box": [0, 457, 44, 500]}],
         "known": {"wall": "right"}}
    p = tmp_path / "c.json"
    p.write_text(json.dumps(c))
    with pytest.raises(CaseError, match="anchor"):
        load_case(p)
    c["known"]["anchor"] = [297, 88]
    p.write_text(json.dumps(c))
    assert load_case(p).known["anchor"] == [297, 88]


def test_a_bob_that_never_swings_is_unmeasurable_not_a_violation():
    task = Pendulum()
    case, _ = task.make_case(0, 1001)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    p = case.known["pendulum"]
    x, y = pk.bob_position(p, np.full(len(t), math.radians(p["amplitude_deg"]) * p["side"]))
    rng = np.random.default_rng(0)
    tracks = Tracks.from_positions(t, {"bob": (x + rng.normal(0, .3, len(t)), y + rng.normal(0, .3, len(t)))}, 12)
    s = task.score(case, task.measure(case, tracks))["R4"]
    assert s.status == "scored" and s.extra["unresolved"], s.extra["metric_status"]
    assert "release" in s.reason


def test_a_clip_with_one_swing_only_is_unmeasurable_for_the_period():
    """Seen until the first turning point after release and a little beyond: no half-period, no M1 or M2."""
    task = Pendulum()
    case, _ = task.make_case(0, 1003)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    keep = t < case.known["pendulum"]["hold_s"] + 0.8 * case.truth.quantities["period_s"]
    m = task.measure(case, _drawn_tracks(task, case, seed=5, keep=keep))
    s = task.metrics(case, m)
    assert s["M1"].status == "operational_zero" and s["M2"].status == "operational_zero"
    assert s["M4"].status == "operational_zero"
