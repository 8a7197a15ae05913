"""R3 projectile: residual formulas on exact paths, launch and gravity on noisy analytic flights of known truth,
both twins, a throw carried by a hand before its release, unmeasurable flights, rendered law ≫ twin."""

import json
import math

import numpy as np
import pytest

from lawful.case import CaseError, load_case
from lawful.perceive import noise
from lawful.score.wmle import q
from lawful.suites.recordings._throws import flight_residuals
from lawful.suites.recordings.r03_projectile import A_HORIZONTAL, Projectile
from lawful.tracks import Tracks

K = noise.k_for()


def _tracks(t, x, y, r, sd=0.3, seed=0):
    rng = np.random.default_rng(seed)
    return Tracks.from_positions(t, {"ball": (x + rng.normal(0, sd, len(t)), y + rng.normal(0, sd, len(t)))}, r)


def _measure(task, case, law="true", sd=0.3, seed=0):
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    x, y = task._xy(case, t, law)
    m = task.measure(case, _tracks(t, x, y, case.known["radius_px"], sd, seed))
    return m, task.metrics(case, m)


def test_residuals_on_exact_paths():
    t = np.linspace(0.0, 1.0, 25)
    x = 100 + 300 * t
    y = 300 - 500 * t + 0.5 * 1000 * t * t
    r = flight_residuals(t, x, y, 300.0)
    assert r["a_y"] == pytest.approx(1000) and r["e1"] == pytest.approx(0, abs=1e-9)
    assert r["e2"] == pytest.approx(0, abs=1e-9) and r["e3"] == pytest.approx(0, abs=1e-9)
    assert r["t_land"] == pytest.approx(1.0) and r["x_obs"] == pytest.approx(400)
    # horizontal deceleration of 100 px/s²: e1 = a_x / a_y = -0.1
    r = flight_residuals(t, x - 50 * t * t, y, 300.0)
    assert r["e1"] == pytest.approx(-0.1, abs=1e-9)
    # vertical acceleration growing from 800 to 1200 px/s² over the flight: y''(τ) = 1000 + 400 τ, e2 = 400·1/1000
    tau = t - 0.5
    r = flight_residuals(t, x, 200 - 300 * tau + 500 * tau**2 + 400 / 6 * tau**3, None)
    assert r["e2"] == pytest.approx(0.4, abs=1e-9) and math.isnan(r["e3"])


@pytest.mark.parametrize("seed", [2, 3])  # 2: landing level given, launched from the floor; 3: found, from a platform
def test_launch_gravity_and_landing_on_noisy_flights(seed):
    task = Projectile()
    case, _ = task.make_case(0, seed)
    k = case.known
    m, s = _measure(task, case)
    assert m.notes["landing_source"] == ("case" if seed % 2 == 0 else "first impact")
    ev = {e.name: e.t for e in m.events}
    assert ev["launch"] == pytest.approx(k["hold_s"], abs=0.25 / case.fps)
    assert ev["landing"] == pytest.approx(k["hold_s"] + k["flight_time_s"], abs=1.0 / case.fps)
    assert m.get("a_y") == pytest.approx(k["g_px_s2"], rel=0.02)
    assert m.get("launch_speed_px_s") == pytest.approx(math.hypot(k["vx_px_s"], k["vy_px_s"]), rel=0.03)
    assert m.get("launch_angle_deg") == pytest.approx(k["angle_deg"], abs=1.5)
    assert min(v.value for v in s.values()) > 0.97


def test_a_pixel_shift_at_rest_before_the_launch_is_not_the_launch():
    """CRF 35 moved a rendered resting ball by ~1 px two frames before its launch; the launch stays where the
    flight's parabola leaves the rest point."""
    task = Projectile()
    case, _ = task.make_case(0, 2)
    k = case.known
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    x, y = task._xy(case, t, "true")
    i = int(np.searchsorted(t, k["hold_s"]))
    x[i - 3:i] -= 0.7
    y[i - 3:i] -= 0.8
    m = task.measure(case, _tracks(t, x, y, k["radius_px"], sd=0.1))
    assert {e.name: e.t for e in m.events}["launch"] == pytest.approx(k["hold_s"], abs=0.25 / case.fps)
    assert min(v.value for v in task.metrics(case, m).values()) > 0.97


def test_errors_are_the_noise_spread():
    """The drawn standard errors against the spread of the residuals over noise seeds (law: residuals are noise)."""
    task = Projectile()
    case, _ = task.make_case(0, 2)
    rows = [_measure(task, case, seed=s)[0] for s in range(10)]
    for key in ("e1", "e2"):
        ratio = np.std([m.notes["residuals"][key] for m in rows]) / np.mean([m.notes["se"][key] for m in rows])
        assert 0.5 < ratio < 1.6, key


@pytest.mark.parametrize("seed, kind", [(2, "cartoon"), (3, "drag")])
def test_twins_fail_the_law_they_break(seed, kind):
    task = Projectile()
    case, _ = task.make_case(0, seed)
    assert case.known["anti_kind"] == kind
    m, s = _measure(task, case, "anti")
    if kind == "cartoon":  # straight, then falling: the vertical acceleration is not constant; landing unpredicted
        assert s["M2"].value < 0.2 and s["M3"].value < 0.2 and s["M1"].value > 0.9
    else:  # v_x decays: a horizontal acceleration of ~R/(8H) g, the landing short of the prediction
        e1 = m.notes["residuals"]["e1"]
        assert abs(e1) > 0.1 and s["M1"].value == pytest.approx(q(abs(e1) - K * m.notes["se"]["e1"], A_HORIZONTAL))
        assert s["M3"].value < 0.4 and s["M2"].value > 0.9
    assert 100 * np.mean([v.value for v in s.values()]) < 60


def test_a_throw_carried_by_a_hand_scores_from_the_case_release():
    """A free throw: the hands carry the ball up for 0.3 s before letting go. The case's release (seconds
    from the window's start) starts the flight there; the carried part would otherwise spoil the fit."""
    task = Projectile()
    case, _ = task.make_case(0, 2)
    k = case.known
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    x, y = task._xy(case, t, "true")
    carry = (t > k["hold_s"] - 0.3) & (t < k["hold_s"])
    u = (t[carry] - (k["hold_s"] - 0.3)) / 0.3
    x[carry] = k["x0"] - 20 * np.sign(k["vx_px_s"]) * (1 - u) ** 2  # wound up, brought forward
    y[carry] = k["y_launch"] + 30 * (1 - u) ** 2
    x[t <= k["hold_s"] - 0.3] = x[carry][0]
    y[t <= k["hold_s"] - 0.3] = y[carry][0]
    tr = _tracks(t, x, y, k["radius_px"])
    free = task.metrics(case, task.measure(case, tr))
    case.release = float(t[np.searchsorted(t, k["hold_s"])])  # the first frame after it leaves the hands
    m = task.measure(case, tr)
    s = task.metrics(case, m)
    assert m.notes["release_source"] == "case"
    assert min(v.value for v in s.values()) > 0.97
    assert np.mean([v.value for v in free.values()]) < 0.9  # from the onset, the carry is in the flight


def test_no_flight_is_unmeasurable_and_an_unseen_landing_leaves_m3_out():
    task = Projectile()
    case, _ = task.make_case(0, 3)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    m = task.measure(case, _tracks(t, np.full(len(t), 300.0), np.full(len(t), 200.0), 10.0))
    s = task.metrics(case, m)
    assert {v.status for v in s.values()} == {"operational_zero"} and "never launched" in s["M1"].reason
    assert task.score(case, m)["R3"].extra["unresolved"]
    # the clip ends before the landing: M1, M2 measured on what flew, M3 unmeasurable (not a violation)
    k = case.known
    cut = t < k["hold_s"] + 0.8 * k["flight_time_s"]
    x, y = task._xy(case, t[cut], "true")
    m = task.measure(case, _tracks(t[cut], x, y, k["radius_px"]))
    s = task.metrics(case, m)
    assert s["M1"].value > 0.97 and s["M2"].value > 0.97
    assert s["M3"].status == "operational_zero" and "landing" in s["M3"].reason


def test_case_without_the_ball_fails_at_load_naming_it(tmp_path):
    case, _ = Projectile().make_case(0, 2)
    doc = json.loads(case.model_dump_json())
    doc["objects"][0]["id"] = "basketball"
    p = tmp_path / "c.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(CaseError, match="'ball'"):
        load_case(p)


def test_rendered_law_clip_beats_its_twin():
    from lawful.runner.validate import validate_variant

    r = validate_variant("recordings", "projectile", 0, 1002)["columns"]["R3"]
    assert r["law"] >= 97 and r["law_C"] >= 80
    assert r["anti"] < r["law"] - 30
