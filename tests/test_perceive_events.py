"""Event detection on signals whose events are known in closed form."""

import numpy as np
import pytest

from lawful.perceive import events


def test_crossing_of_linear_ramp_is_the_analytic_fractional_index():
    s = 2.0 + 0.7 * np.arange(30)  # s(i) = 2 + 0.7 i
    level = 10.0
    assert events.crossing(s, level, +1) == pytest.approx((level - 2.0) / 0.7, abs=1e-9)
    assert events.crossing(s[::-1], level, -1) == pytest.approx(29 - (level - 2.0) / 0.7, abs=1e-9)
    assert events.crossing(s, level, -1) is None  # never falls through it
    assert events.crossing(s, 1.0, +1) is None  # already above at the start: not a crossing
    assert events.crossing(s, level, +1, start=20) is None


def test_crossing_skips_nan_pairs_and_honours_start():
    s = np.array([0.0, 1.0, np.nan, 3.0, 4.0, 0.0, 5.0])
    assert events.crossing(s, 3.5, +1) == pytest.approx(3.5)
    assert events.crossing(s, 2.0, +1, start=5) == pytest.approx(5.4)
    assert events.crossing(s, 2.0, 0, start=4) == pytest.approx(4.5)


@pytest.mark.parametrize("apex", [17.3, 22.81, 9.5])
def test_turning_point_of_sampled_parabola_within_005_frames(apex):
    i = np.arange(40, dtype=float)
    y = 120.0 - 0.9 * (i - apex) ** 2  # a maximum
    (tp,) = events.turning_points(y, "max")
    assert abs(tp - apex) < 0.05
    (tm,) = events.turning_points(-y, "min")
    assert abs(tm - apex) < 0.05


def test_turning_points_respect_prominence_and_nan_runs():
    i = np.arange(60, dtype=float)
    y = np.sin(2 * np.pi * i / 20) + 0.01 * np.cos(7 * i)
    peaks = events.turning_points(y, "max", prominence=0.5)
    assert len(peaks) == 3
    np.testing.assert_allclose(peaks, [5, 25, 45], atol=0.1)
    y2 = y.copy()
    y2[24:27] = np.nan  # the peak at 25 is not seen reversing
    assert len(events.turning_points(y2, "max", prominence=0.5)) == 2


def test_half_periods_of_sampled_sine():
    period = 23.7  # samples
    i = np.arange(120, dtype=float)
    anchor = 50.0
    x = anchor + 40 * np.cos(2 * np.pi * i / period)  # released at rest from a turning point
    hp = events.half_periods(x, anchor)
    expected = [k * period / 2 for k in range(1, 11) if k * period / 2 < 119]
    assert len(hp) == len(expected)
    np.testing.assert_allclose(hp, expected, atol=0.05)
    np.testing.assert_allclose(np.diff(hp), period / 2, atol=0.05)


def test_half_periods_ignore_jitter_at_the_anchor():
    period = 30.0
    i = np.arange(100, dtype=float)
    x = 40 * np.cos(2 * np.pi * i / period)
    x[np.abs(x) < 3] += np.where(i[np.abs(x) < 3] % 2 == 0, 2.5, -2.5)  # chatter near the anchor
    hp = events.half_periods(x, 0.0, min_amplitude=10)
    np.testing.assert_allclose(hp, [15, 30, 45, 60, 75, 90], atol=0.1)


def test_impacts_of_bouncing_ball_at_sub_frame_times():
    # ball bottom y (down positive) falls onto ground 200, bounces with restitution 0.6
    g, dt = 1.0, 1.0
    t_imp = [np.sqrt(2 * 150 / g)]
    v = g * t_imp[0] * 0.6
    for _ in range(2):
        t_imp.append(t_imp[-1] + 2 * v / g)
        v *= 0.6

    def bottom(t):
        if t < t_imp[0]:
            return 50 + 0.5 * g * t * t
        k = np.searchsorted(t_imp, t) - 1
        v0 = g * t_imp[0] * 0.6 ** (k + 1)
        tau = t - t_imp[k]
        return 200 - (v0 * tau - 0.5 * g * tau * tau)

    y = np.array([bottom(k * dt) for k in range(60)])
    found = events.impacts(y, ground_y=200, tol=3)
    assert len(found) == 3
    np.testing.assert_allclose(found, t_imp, atol=0.15)
    # the rebound apex after each impact
    apexes = events.rebound_apexes(y, found)
    np.testing.assert_allclose(apexes[:2], [t_imp[0] + (t_imp[1] - t_imp[0]) / 2, t_imp[1] + (t_imp[2] - t_imp[1]) / 2],
                               atol=0.05)


def test_impacts_ignore_reversals_far_from_the_ground():
    y = np.array([100, 110, 120, 118, 112, 120, 140, 160, 199, 180, 170], float)
    assert events.impacts(y, ground_y=200, tol=3) == pytest.approx([8.0], abs=0.6)


def test_smooth_is_nan_aware_and_keeps_polynomials():
    i = np.arange(40, dtype=float)
    y = 3 + 2 * i - 0.1 * i * i
    y[10] = np.nan
    s = events.smooth(y, window=7)
    assert np.isnan(s[10])
    finite = np.isfinite(y)
    np.testing.assert_allclose(s[finite], y[finite], atol=1e-9)  # order-2 filter keeps a parabola
    rng = np.random.default_rng(0)
    noisy = y + rng.normal(0, 1, len(y))
    assert np.nanstd(events.smooth(noisy, 9) - y) < 0.75 * np.nanstd(noisy - y)


def test_velocity_in_units_per_second():
    t = np.arange(20) * 0.04
    y = 5 * t * t
    v = events.velocity(y, t)
    np.testing.assert_allclose(v[1:-1], 10 * t[1:-1], atol=1e-9)
    y[5] = np.nan
    assert np.isnan(events.velocity(y, t)[5])


def test_index_to_time_interpolates_track_times():
    t = np.array([0.0, 0.1, 0.2, 0.3])
    assert events.index_to_time(1.25, t) == pytest.approx(0.125)
    assert events.index_to_time(None, t) is None


def test_a_crossing_inside_a_short_tracking_gap_is_still_found():
    from lawful.perceive.events import crossing

    s = np.array([0.0, 0.0, 0.0, np.nan, 6.0, 8.0])  # the block was hidden by the ball at the hit
    assert crossing(s, 1.5) == pytest.approx(2 + 2 * 1.5 / 6.0)
    s = np.array([0.0, 0.0, np.nan, np.nan, np.nan, 6.0])  # three missing: too long to say when
    assert crossing(s, 1.5) is None
    assert crossing(np.array([0.0, 2.0, np.nan, 0.0]), 1.0, direction=-1) == pytest.approx(2.0)


def test_an_impact_inside_a_short_tracking_gap_is_still_found():
    """A ball lost at its impact sample (blurred over its contact shadow): the V's corner comes from the
    samples either side at their own indices; a gap longer than MAX_BRIDGED_GAP says nothing."""
    g, t0 = 1.0, np.sqrt(2 * 150.0)  # falls 150 px onto the ground at y = 200, rebounds at 0.6 x its speed
    v = 0.6 * g * t0

    def bottom(t):
        return 50 + 0.5 * g * t * t if t < t0 else 200 - (v * (t - t0) - 0.5 * g * (t - t0) ** 2)

    y = np.array([bottom(float(k)) for k in range(30)])
    whole = events.impacts(y, ground_y=200, tol=3)[0]
    for lost in ([17], [17, 18], [18]):
        s = y.copy()
        s[lost] = np.nan
        got = events.impacts(s, ground_y=200, tol=3)
        assert len(got) == 1 and got[0] == pytest.approx(t0, abs=0.15), (lost, got)
        assert abs(got[0] - whole) < 0.15
    s = y.copy()
    s[16:19] = np.nan  # three samples: too long to say what happened in between
    assert events.impacts(s, ground_y=200, tol=3) == []


def test_savgol_is_scipys_filter_by_its_matrix_made_once_per_length():
    from scipy.signal import savgol_filter

    rng = np.random.default_rng(3)
    for n in (4, 7, 96, events.MATRIX_N, events.MATRIX_N + 1):
        y = np.cumsum(rng.standard_normal(n)) * 30
        for w, o in ((7, 2), (5, 2), (3, 1)):
            if w <= n:
                want = savgol_filter(y, w, o, mode="interp")
                assert np.allclose(events.savgol(y, w, o), want, rtol=1e-12, atol=1e-9 * np.abs(want).max())
    S = events.savgol_matrix(96, 7, 2)
    assert events.savgol_matrix(96, 7, 2) is S and not S.flags.writeable
