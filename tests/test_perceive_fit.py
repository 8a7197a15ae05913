"""perceive.fit: fit_circle (exact circles, noisy arcs, stray points, degenerate input) and fit_arc."""

import math

import numpy as np
import pytest

from lawful.perceive.fit import fit_circle


def _arc(cx, cy, r, a0, a1, n, rng=None, sigma=0.0):
    a = np.linspace(a0, a1, n)
    x, y = cx + r * np.cos(a), cy + r * np.sin(a)
    if rng is not None:
        x, y = x + rng.normal(0, sigma, n), y + rng.normal(0, sigma, n)
    return x, y


def test_exact_circle_from_a_short_arc():
    x, y = _arc(312.5, -40.25, 180.0, 1.2, 1.9, 30)  # a 40 deg pendulum arc
    cx, cy, r, rms = fit_circle(x, y)
    assert abs(cx - 312.5) < 1e-6 and abs(cy + 40.25) < 1e-6 and abs(r - 180.0) < 1e-6 and rms < 1e-6


def test_noisy_arc_centre_within_its_standard_error():
    rng = np.random.default_rng(3)
    x, y = _arc(100.0, 50.0, 40.0, 0.0, 2 * math.pi, 400, rng, 0.5)
    cx, cy, r, rms = fit_circle(x, y)
    se = 0.5 / math.sqrt(400 / 2)  # centre standard error of a full circle: sigma / sqrt(n/2)
    assert abs(cx - 100.0) < 4 * se and abs(cy - 50.0) < 4 * se and abs(r - 40.0) < 4 * 0.5 / math.sqrt(400)
    assert abs(rms - 0.5) < 0.06


def test_robust_fit_ignores_an_inner_edge_and_a_missing_arc():
    # a ring rim seen with a third of it missing; the gap's inner edge (radius 30) joins the contour
    x, y = _arc(200.0, 120.0, 36.0, 0.0, 4 * math.pi / 3, 160)
    xi, yi = _arc(200.0, 120.0, 30.0, 4 * math.pi / 3, 2 * math.pi, 25)
    x, y = np.r_[x, xi], np.r_[y, yi]
    plain = fit_circle(x, y)
    cx, cy, r, rms = fit_circle(x, y, robust=True)
    assert math.hypot(plain[0] - 200.0, plain[1] - 120.0) > 0.5  # the stray edge pulls a plain fit
    assert abs(cx - 200.0) < 1e-6 and abs(cy - 120.0) < 1e-6 and abs(r - 36.0) < 1e-6 and rms < 1e-6


def test_too_few_or_nan_points_give_nan():
    assert all(math.isnan(v) for v in fit_circle([0, 1, 2, np.nan], [0, 1, 0, 5]))
    x, y = _arc(0.0, 0.0, 10.0, 0.0, 3.0, 8)
    x[2] = np.nan
    assert abs(fit_circle(x, y)[2] - 10.0) < 1e-9


def test_the_least_median_triples_are_drawn_once_per_point_count_and_are_the_seeded_ones():
    """The robust circle fit's random triples are cached per point count (a ring is fitted on every frame):
    they must be exactly the fixed-seed draws, so cached or not the fit is the same."""
    from lawful.perceive import fit

    for n in (5, 23, 64):
        rng = np.random.default_rng(0)
        drawn = np.array([rng.choice(n, 3, replace=False) for _ in range(fit.TRIPLES)])
        assert np.array_equal(fit._triples(n), drawn) and fit._triples(n) is fit._triples(n)
        assert not fit._triples(n).flags.writeable


@pytest.mark.parametrize("q", [(0.3, 0.2, 0.01), (-2.0, -0.4, -0.03), (0.0, 0.0, 1e-9), (1.0, 1.2, 0.2)])
def test_the_arc_residuals_closed_form_derivatives_match_finite_differences(q):
    from lawful.perceive.fit import _arc_jac, _arc_resid

    rng = np.random.default_rng(3)
    pts = rng.uniform(-20, 20, (40, 2))
    c0, t0, m0 = pts.mean(0), np.array([0.8, 0.6]), np.array([-0.6, 0.8])
    J = _arc_jac(np.array(q), pts, c0, t0, m0)
    for j in range(3):
        h = np.zeros(3)
        h[j] = 1e-6 * max(1.0, abs(q[j]))
        num = (_arc_resid(np.array(q) + h, pts, c0, t0, m0) - _arc_resid(np.array(q) - h, pts, c0, t0, m0)) / (2 * h[j])
        assert np.allclose(J[:, j], num, rtol=1e-5, atol=1e-7), j


@pytest.mark.parametrize("span", [0.8, 1.5, 3.0])
def test_a_noisy_film_arc_gives_its_circle(span):
    from lawful.perceive.fit import fit_arc

    rng = np.random.default_rng(4)
    th = 0.4 + np.linspace(0, span, 120)
    pts = np.stack([200 + 60 * np.cos(th), 150 + 60 * np.sin(th)], 1) + rng.normal(0, 0.3, (120, 2))
    cx, cy, r, rms = fit_arc(pts)
    tol = 0.7 if span > 1 else 2.0  # a shorter arc leaves its curvature looser (sagitta 4.7 px at 0.8 rad)
    assert abs(r - 60) < tol and abs(cx - 200) < tol and abs(cy - 150) < tol
    assert 0.2 < rms < 0.4
    line = np.stack([np.linspace(0, 80, 50), 10 + 0.5 * np.linspace(0, 80, 50)], 1) + rng.normal(0, 0.2, (50, 2))
    assert fit_arc(line)[2] > 1e3  # a straight film: a huge radius, not a small circle
