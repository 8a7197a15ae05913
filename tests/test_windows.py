"""Velocity windows grown from a contact (:func:`lawful.suites.windows.grow_window`) across a stretch where the
body was not seen: crossed where the samples beyond it continue the motion, not where the motion changed."""

import numpy as np
import pytest

from lawful.suites.windows import grow_window, poly_fit

FPS, V, SIGMA = 24.0, 120.0, 0.2  # samples/s, px/s (5 px a sample), px


def _track(seed: int, v_far: float = V, gap=range(18, 26)):
    """A ball rolling at ``V`` into a contact after sample 28, unseen during ``gap``; before the gap it rolled at
    ``v_far`` (meeting the same line at the gap's middle). ``(t, x, order)``: samples nearest the contact first."""
    rng = np.random.default_rng(seed)
    t = np.arange(29) / FPS
    mid = (gap.start + gap.stop - 1) / 2 / FPS
    x = np.where(t >= mid, 100 + V * t, 100 + V * mid + v_far * (t - mid)) + rng.normal(0, SIGMA, len(t))
    x[list(gap)] = np.nan
    order = np.flatnonzero(np.isfinite(x))[::-1]
    return t, x, order


@pytest.mark.parametrize("seed", range(5))
def test_a_window_crosses_a_gap_the_motion_continues_across(seed):
    """Studio WMLE P5 seed 1003: the striker merged with a red look-alike for samples 18-25 and was seen at 26-28
    only before the contact; the window was empty and the law clip unmeasurable."""
    t, x, order = _track(seed)
    idx = grow_window(t, x, order, SIGMA)
    assert list(idx) == list(range(18)) + [26, 27, 28]
    c, se = poly_fit(t, x, idx, t[28], SIGMA, 1)
    assert abs(c[1] - V) < 4 * se[1] and se[1] < 1.0


@pytest.mark.parametrize("seed", range(5))
def test_a_window_does_not_cross_a_gap_where_the_motion_changed(seed):
    """Before the gap the ball rolled 40 % slower (a push unseen in it): the three samples after it are all the
    window has, fewer than a velocity fit needs. (Three samples predict 10 samples back to 5.2 px: a 20 %
    change, 4.5 px there, is within what they can tell.)"""
    t, x, order = _track(seed, v_far=0.6 * V)
    assert len(grow_window(t, x, order, SIGMA)) == 0


def test_a_short_gap_is_crossed_as_before():
    t, x, order = _track(0, gap=range(20, 22))
    assert list(grow_window(t, x, order, SIGMA)) == [k for k in range(29) if k not in (20, 21)]
