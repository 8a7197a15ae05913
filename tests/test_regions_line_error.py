"""A line reading's direction error (``angle_sd``): calibrated on lines whose pieces are shifted by a known scatter."""

import numpy as np
import pytest

from lawful.perceive import regions


def _pixels(rng, shift_sd, length=160.0, per_px=3):
    """Pixels of a horizontal line: every 8-px piece shifted across by N(0, shift_sd), each pixel by N(0, 0.3)."""
    along = np.repeat(np.arange(length), per_px).astype(float)
    piece = rng.normal(0, shift_sd, int(length // regions.BIN) + 1)
    perp = piece[(along // regions.BIN).astype(int)] + rng.normal(0, 0.3, len(along))
    return along, perp


def test_angle_sd_matches_the_scatter_of_fitted_directions():
    """Over many lines, the fitted slope's spread equals the mean stated error (both shared and pixel noise)."""
    rng = np.random.default_rng(7)
    slopes, sds = [], []
    for _ in range(400):
        along, perp = _pixels(rng, 0.25)
        s = along - along.mean()
        slopes.append(float(s @ perp / (s @ s)))
        sds.append(regions._slope_sd(along - along.min(), perp))
    assert np.std(slopes) == pytest.approx(np.sqrt(np.mean(np.square(sds))), rel=0.12)
    # a per-pixel error alone would claim far less: sd of pixel noise / sqrt(sum s^2)
    naive = 0.3 / np.sqrt(np.sum((np.repeat(np.arange(160.0), 3) - 79.5) ** 2))
    assert np.std(slopes) > 4 * naive


def test_angle_sd_needs_four_pieces_and_is_zero_on_a_perfect_line():
    along = np.arange(24.0)
    assert np.isnan(regions._slope_sd(along, np.zeros_like(along)))  # three 8-px pieces
    along = np.arange(64.0)
    assert regions._slope_sd(along, 0.01 * along) == pytest.approx(0.0, abs=1e-12)
