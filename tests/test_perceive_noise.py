"""Localisation-noise estimates on closed-form trajectories with Gaussian noise of known sigma."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lawful.perceive import noise
from lawful.tracks import Tracks

T = np.arange(144) / 24.0  # 6 s at 24 fps


def _paths():
    """Noise-free closed-form coordinates (px): free fall, pendulum x, projectile x/y, at rest."""
    return {
        "fall": 40 + 0.5 * 9.81 * 40 * T**2,
        "pendulum": 320 + 90 * np.cos(2 * np.pi / 1.6 * T),
        "projectile_x": 50 + 80 * T,
        "projectile_y": 300 - 150 * T + 0.5 * 9.81 * 40 * T**2,
        "rest": np.full_like(T, 123.4),
    }


@pytest.mark.parametrize("path", list(_paths()))
@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.0])
def test_sigma_is_recovered_from_the_track(path, sigma):
    clean = _paths()[path]
    est = []
    for seed in range(10):
        y = clean + np.random.default_rng(seed).normal(0, sigma, len(T))
        y[[20, 21, 60, 97, 98, 99]] = np.nan  # tracker gaps
        est.append(noise.sigma(y))
    est = np.array(est) / sigma
    assert np.all(np.abs(est - 1) < 0.35), est
    assert abs(est.mean() - 1) < 0.12, est.mean()


def test_clean_paths_have_almost_no_noise():
    for name, y in _paths().items():
        assert noise.sigma(y) < 0.05, name


def test_track_noise_per_axis_and_too_few_samples():
    rng = np.random.default_rng(3)
    p = _paths()
    tr = Tracks.from_positions(T, {"ball": (p["projectile_x"] + rng.normal(0, 0.5, len(T)),
                                            p["projectile_y"] + rng.normal(0, 2.0, len(T)))})
    tn = noise.track_noise(tr["ball"])
    assert tn.sigma_x == pytest.approx(0.5, rel=0.3) and tn.sigma_y == pytest.approx(2.0, rel=0.3)
    assert tn.sigma == tn.sigma_y
    assert math.isnan(noise.sigma(np.array([1.0, 2.0, np.nan, 3.0])))


def test_thresholds_follow_the_false_alarm_rate():
    assert noise.k_for(1e-3) == pytest.approx(3.2905, abs=1e-3)
    assert noise.step_threshold(1.0, 1e-3) == pytest.approx(3.2905 * math.sqrt(2), abs=1e-3)
    assert noise.step_threshold(0.01, 1e-3, floor=0.5) == 0.5
    assert noise.step_threshold(math.nan, floor=0.5) == 0.5
    assert noise.curvature_threshold(1.0, 1e-3) == pytest.approx(3.2905 * math.sqrt(6), abs=1e-3)
    # pure noise: the fraction of raw steps beyond the threshold is about the false-alarm rate
    e = np.random.default_rng(0).normal(0, 1.0, 200_000)
    frac = np.mean(np.abs(np.diff(e)) > noise.step_threshold(1.0, 0.01))
    assert frac == pytest.approx(0.01, rel=0.15)


def test_smoothed_step_noise_is_exact():
    sd = None
    steps = []
    for seed in range(200):
        e = np.random.default_rng(seed).normal(0, 1.5, 30)
        s, sd = noise.smoothed_steps(e, 1.5, window=7)
        steps.append(np.diff(s))
    emp = np.std(np.array(steps), axis=0)
    assert np.allclose(emp, sd, rtol=0.15)
    assert sd[15] < 0.5 * 1.5 * math.sqrt(2)  # smoothing shrinks the interior step noise


def test_a_track_that_repeats_exactly_is_not_noiseless_below_its_mask_resolution():
    """Positions that repeat exactly but for one edge pixel flipping now and then have a MAD of 0;
    the track's noise is then the mask's resolution, 1 / sqrt(pi * area)."""
    t = np.arange(48) / 24.0
    y = 250.0 + 0.01 * (np.arange(48) % 12 == 2)
    tr = Tracks.from_positions(t, {"ring": (np.full(48, 200.0), y)}, radius=10.0)
    assert noise.sigma(tr["ring"].y) == pytest.approx(0.0, abs=1e-9)
    tn = noise.track_noise(tr["ring"])
    area = np.pi * 10.0 ** 2
    assert tn.sigma_x == pytest.approx(1 / math.sqrt(np.pi * area)) and tn.sigma_y == tn.sigma_x
    assert noise.resolution(area) == pytest.approx(1 / (10.0 * np.pi))  # radius over area for a disc
    # a noisy track keeps its own estimate
    rng = np.random.default_rng(1)
    noisy = Tracks.from_positions(t, {"b": (200.0 + rng.normal(0, 0.5, 48), y)}, radius=10.0)
    assert noise.track_noise(noisy["b"]).sigma_x > 0.3
