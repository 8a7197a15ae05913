"""Physics helpers against closed forms."""

import math

import numpy as np
import pytest

from lawful.world.physics import (PixelMap, bounce_impact_times, bounce_trajectory, incline_slide,
                                  pendulum_angle, pendulum_period, projectile, rolling_distance,
                                  spring_equilibrium, spring_position)

G = 9.81


def test_bounce_apex_heights_and_impacts():
    h0, e = 1.2, 0.75
    t = np.linspace(0, 3.5, 70001)
    y = bounce_trajectory(h0, e, G, t)
    assert y.min() >= 0 and y[0] == pytest.approx(h0)
    ti = bounce_impact_times(h0, e, G, 5)
    assert ti[0] == pytest.approx(math.sqrt(2 * h0 / G))
    for k in range(1, 4):
        seg = (t > ti[k - 1]) & (t < ti[k])
        assert y[seg].max() == pytest.approx(e ** (2 * k) * h0, rel=1e-4)
    assert bounce_trajectory(h0, e, G, ti) == pytest.approx(np.zeros(5), abs=1e-9)
    rest = math.sqrt(2 * h0 / G) * (1 + e) / (1 - e)
    assert np.all(bounce_trajectory(h0, e, G, [rest + 0.1, rest + 1]) == 0)
    assert np.all(bounce_trajectory(h0, 0.0, G, [1.0, 2.0]) == 0)


def test_incline_slide_and_rolling():
    th = math.radians(30)
    assert incline_slide(2.0, th, 0.2, G) == pytest.approx(0.5 * G * (0.5 - 0.2 * math.cos(th)) * 4)
    assert np.all(incline_slide([0.5, 3.0], th, math.tan(th), G) == 0)  # tan(theta) <= mu: stays
    assert rolling_distance(2.0, th, 0.4, G) == pytest.approx(0.5 * G * 0.5 / 1.4 * 4)
    assert rolling_distance(1.0, th, 1.0, G) < rolling_distance(1.0, th, 0.5, G) < rolling_distance(1.0, th, 0.4, G)


@pytest.mark.parametrize("theta0", [0.3, 1.0, 2.5])
def test_pendulum_period_ode_matches_elliptic(theta0):
    length = 0.8
    T = pendulum_period(length, theta0, G)
    # Swing reaches -theta0 at T/2: find the first time the angular velocity sign flips by root search.
    t = np.linspace(0.45 * T, 0.55 * T, 2001)
    th = pendulum_angle(t, length, theta0, G)
    i = int(np.argmin(th))
    # parabolic refinement of the minimum
    a, b, c = th[i - 1], th[i], th[i + 1]
    dt = t[1] - t[0]
    t_min = t[i] + 0.5 * dt * (a - c) / (a - 2 * b + c)
    assert 2 * t_min == pytest.approx(T, rel=1e-6)
    assert pendulum_angle([0.0, T], length, theta0, G) == pytest.approx([theta0, theta0], abs=1e-6)


def test_small_angle_period():
    length = 1.3
    assert pendulum_period(length, math.radians(2), G) == pytest.approx(2 * math.pi * math.sqrt(length / G), rel=1e-3)
    assert pendulum_period(length, math.radians(60), G) > 1.06 * 2 * math.pi * math.sqrt(length / G)


def test_spring():
    m, k = 0.5, 20.0
    x_eq = spring_equilibrium(m, k, G)
    assert x_eq == pytest.approx(m * G / k)
    w = math.sqrt(k / m)
    t = np.linspace(0, 3, 7)
    assert spring_position(t, m, k, G, 0.0) == pytest.approx(x_eq - x_eq * np.cos(w * t))
    assert spring_position(0.0, m, k, G, 0.1, damping=0.3) == pytest.approx(0.1)
    for c in (0.3, 2 * math.sqrt(k * m), 40.0):  # under, critical, over
        assert spring_position(60.0, m, k, G, 0.0, damping=c) == pytest.approx(x_eq, abs=1e-6)
    # light damping: envelope decays as exp(-c t / 2m)
    c = 0.2
    T = 2 * math.pi / math.sqrt(k / m - (c / (2 * m)) ** 2)
    assert spring_position(T, m, k, G, 0.0, c) - x_eq == pytest.approx(-x_eq * math.exp(-c * T / (2 * m)), rel=1e-9)


def test_projectile_and_pixel_map():
    x, y = projectile(np.array([0.0, 1.0]), 0.0, 2.0, 3.0, 4.0, G)
    assert x == pytest.approx([0, 3]) and y == pytest.approx([2, 2 + 4 - G / 2])
    pm = PixelMap(px_per_m=100.0, origin_px=(50.0, 300.0))
    u, v = pm.to_px(1.0, 0.5)
    assert (u, v) == (150.0, 250.0)
    assert pm.to_m(u, v) == pytest.approx((1.0, 0.5))
    assert pm.px(0.2) == pytest.approx(20.0) and pm.m(20) == pytest.approx(0.2)


def test_pendulum_angle_at_release_only():
    import numpy as np

    from lawful.world.physics import pendulum_angle

    assert np.allclose(pendulum_angle(np.zeros(3), 1.0, 0.3, 9.81), 0.3)
