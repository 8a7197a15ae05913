"""P36 funnel discharge: the cone drain laws against an integrated ODE, the exponent fit, M1 on known
numbers, extraction on hand-made levels, and the reference and its twin end to end."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lawful.perceive import noise
from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p36_funnel_discharge import FunnelDischarge, beta_residual
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world import flows


def test_torricelli_cone_matches_the_ode():
    tan_a, h0, a = math.tan(math.radians(30)), 0.12, math.pi * 0.002**2  # a 12-cm fill, 4-mm outlet
    T = flows.torricelli_empty_time(h0, tan_a, a)
    # dV/dh · dh/dt = −a √(2 g h), dV/dh = π tan²α h²
    rhs = lambda t, h: [-a * math.sqrt(2 * flows.G * max(h[0], 0.0)) / (math.pi * tan_a**2 * max(h[0], 1e-9) ** 2)]
    ts = np.linspace(0, 0.9 * T, 7)
    sol = solve_ivp(rhs, (0, ts[-1]), [h0], t_eval=ts, rtol=1e-10, atol=1e-12)
    assert np.allclose(sol.y[0], flows.drain_head(ts, h0, T, 0.5), rtol=1e-6)
    # closed form at half the time: h0 (1/2)^{2/5}
    assert flows.drain_head(T / 2, h0, T, 0.5) == pytest.approx(h0 * 0.5**0.4)
    # constant (Beverloo) flow: V falls linearly, h³ linear in t
    h = flows.drain_head(ts, h0, T, 0.0)
    V = flows.cone_volume(h, tan_a)
    assert np.allclose(np.diff(V), np.diff(V)[0], rtol=1e-9)
    # Beverloo: 5/2 power of the outlet less k grain diameters
    assert flows.beverloo_rate(0.01, 0.001, 1500.0) == pytest.approx(0.58 * 1500 * math.sqrt(9.81) * 0.0085**2.5)
    assert flows.beverloo_rate(0.001, 0.001, 1500.0) == 0.0


@pytest.mark.parametrize("beta", [0.5, 0.0, 1.0])
def test_exponent_fit_recovers_beta(beta):
    rng = np.random.default_rng(3)
    t = np.arange(120) / 24.0
    h = flows.drain_head(t, 150.0, 5.6, beta) + rng.normal(0, 0.2, len(t))
    fit = flows.fit_drain_exponent(t, h, sigma=0.2)
    assert abs(fit["beta"] - beta) < 4 * fit["beta_se"] and fit["beta_se"] < 0.03
    assert fit["h0"] == pytest.approx(150.0, abs=0.5)
    # a level that does not fall: no fit
    assert flows.fit_drain_exponent(t, np.full(len(t), 100.0)) is None


def test_m1_on_known_numbers():
    s = beta_residual(0.5, 0.01, 0.0, 0.01)
    assert s.value == 1.0 and s.residual == 0.0
    s = beta_residual(0.0, 0.0, 0.0, 0.0)  # water drained like sand
    assert s.residual == pytest.approx(0.5) and s.value == pytest.approx(q(0.5, 1.0)) == pytest.approx(2 / 3)
    s = beta_residual(0.9, 0.0, 0.3, 0.0)
    assert s.residual == pytest.approx(0.7) and s.value == pytest.approx(1 / 1.7)
    # the score is the seed's q(e1); what lies beyond k standard errors is evidence
    k = noise.k_for()
    s = beta_residual(0.5 + 0.2, 0.03, 0.0, 0.01)
    assert s.residual == pytest.approx(0.2) and s.value == pytest.approx(q(0.2, 1.0))
    assert s.components["e1_beyond_noise"] == pytest.approx(0.2 - k * 0.03)
    assert beta_residual(0.5 + 0.2, 0.1, 0.0, 0.01).components["e1_beyond_noise"] == 0.0  # within k standard errors
    assert beta_residual(None, None, 0.0, 0.01).status == "operational_zero"


def _tracks(case, h_water, h_sand, sigma=0.15):
    T = len(h_water)
    tr = Tracks.empty([], T, fps=24.0)
    tr.t = np.arange(T) / 24.0
    for m, h in (("water", h_water), ("sand", h_sand)):
        ya = case.known["funnels"][m]["apex"][1]
        tr.regions[f"funnel_{m}"] = RegionSeries.from_values(f"funnel_{m}", "level", sigma=sigma, row=ya - h)
    return tr


def test_extraction_on_hand_made_levels():
    task = FunnelDischarge()
    case, _ = task.make_case(0, 11)
    t = np.arange(120) / 24.0
    rng = np.random.default_rng(5)
    hw = flows.drain_head(t, 140.0, 5.5, 0.5) + rng.normal(0, 0.15, len(t))
    hs = flows.drain_head(t, 140.0, 5.3, 0.0) + rng.normal(0, 0.15, len(t))
    hw[10] = np.nan  # an unread sample is left out
    m = task.measure(case, _tracks(case, hw, hs))
    assert m.get("beta_water") == pytest.approx(0.5, abs=0.03) and m.get("beta_sand") == pytest.approx(0.0, abs=0.03)
    assert task.metrics(case, m)["M1"].value > 0.97
    assert m.notes["C_checks"]["readable_water"] == pytest.approx(119 / 120)
    # the water sinking at a constant volume rate: β_water ≈ 0, e1 ≈ 0.5
    m = task.measure(case, _tracks(case, flows.drain_head(t, 140.0, 5.5, 0.0), hs))
    sc = task.metrics(case, m)["M1"]
    assert sc.residual == pytest.approx(0.5, abs=0.03) and sc.value < 0.7
    # a level that never falls: unmeasured, an operational zero
    m = task.measure(case, _tracks(case, np.full(len(t), 140.0), hs))
    assert task.metrics(case, m)["M1"].status == "operational_zero"


def _score(task, case, law, tmp_path):
    path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
    return evaluate_video(case, path, task).scores["P36"]


def test_reference_and_twin_end_to_end(tmp_path):
    task = FunnelDischarge()
    case, _ = task.make_case(0, 1004)
    law, anti = (_score(task, case, lw, tmp_path) for lw in ("true", "anti"))
    assert law.metrics["C"] == 100.0 and law.metrics["P"] >= 97.0
    assert abs(law.residuals["M1.beta_water"] - 0.5) < 0.05 and abs(law.residuals["M1.beta_sand"]) < 0.05
    assert anti.metrics["P"] < 75.0 and abs(anti.residuals["M1.beta_water"]) < 0.05
