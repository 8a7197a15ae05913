"""physics_more: Stokes settling, eddy-damped pendulum, drop merging, pile geometry against closed forms."""

import math

import numpy as np
import pytest

from lawful.world import physics_more as pm


def test_stokes_speed_and_fall():
    # glass bead r = 2 mm in glycerin: 2·1240·9.81·4e-6 / (9·1.41)
    v = pm.stokes_speed(2e-3, 2500.0, 1260.0, 1.41)
    assert v == pytest.approx(2 * 1240 * 9.81 * 4e-6 / (9 * 1.41), rel=1e-12)
    assert pm.stokes_speed(3e-3, 2500.0, 1260.0, 1.41) / v == pytest.approx(2.25, rel=1e-12)  # ∝ r²
    tau = pm.stokes_relaxation(2e-3, 2500.0, 1260.0, 1.41)
    assert tau == pytest.approx(2 * 4e-6 * 3130 / (9 * 1.41), rel=1e-12)
    t = np.array([-1.0, 0.0, tau, 50 * tau])
    d = pm.stokes_fall(t, v, tau)
    assert d[0] == 0 and d[1] == 0
    assert d[2] == pytest.approx(v * tau * math.exp(-1), rel=1e-12)  # v(τ − τ(1 − 1/e))
    assert d[3] == pytest.approx(v * 49 * tau, rel=1e-9)  # terminal: slope v, lag τ
    assert pm.reynolds(2e-3, v, 1260.0, 1.41) < 0.1


def test_damped_pendulum_matches_linear_closed_form_at_small_angle():
    t = np.linspace(0, 6, 400)
    th0 = math.radians(0.5)
    num = pm.damped_pendulum_angle(t, 0.4, th0, 0.1)
    ref = pm.damped_small_angle(t, 0.4, th0, 0.1)
    assert np.abs(num - ref).max() < 2e-5 * th0 * 50  # sin θ ≈ θ to 1e-5 at 0.5°
    # successive maxima of the closed form fall by the decrement
    w0 = math.sqrt(9.81 / 0.4)
    Td = 2 * math.pi / (w0 * math.sqrt(1 - 0.01))
    peaks = pm.damped_small_angle(np.array([0.0, Td, 2 * Td]), 0.4, th0, 0.1)
    assert peaks[1] / peaks[0] == pytest.approx(pm.peak_decrement(0.1), rel=1e-9)
    assert peaks[2] / peaks[1] == pytest.approx(pm.peak_decrement(0.1), rel=1e-9)
    # undamped: the energy of the nonlinear swing is conserved
    a = pm.damped_pendulum_angle(t, 0.4, math.radians(30), 0.0)
    assert np.abs(a).max() == pytest.approx(math.radians(30), rel=1e-4)
    with pytest.raises(ValueError):
        pm.damped_pendulum_angle([-1.0], 0.4, 0.1, 0.1)


def test_drop_merge_and_modes():
    assert pm.merged_radius(3.0, 4.0) == pytest.approx(91 ** (1 / 3), rel=1e-12)
    assert pm.merged_radius(1.0, 1.0) == pytest.approx(2 ** (1 / 3), rel=1e-12)
    # water drop R = 1 mm: ω² = 8σ/(ρR³)
    assert pm.rayleigh_frequency(1e-3, 0.072, 1000.0) == pytest.approx(math.sqrt(8 * 0.072 / 1e-6), rel=1e-12)
    assert pm.shape_mode_decay(1e-3, 1e-6) == pytest.approx(0.2, rel=1e-12)
    a, b = pm.spheroid_axes(5.0, 0.2)
    assert a * b * b == pytest.approx(125.0, rel=1e-12) and a == pytest.approx(6.0)


def test_pile_half_width():
    assert pm.pile_half_width(10.0, 45.0) == pytest.approx(10.0, rel=1e-12)
    assert pm.pile_half_width(math.sqrt(3), 60.0) == pytest.approx(1.0, rel=1e-12)
