"""A line reading's direction error (``angle_sd``): calibrated on lines whose pieces are shifted by a known scatter."""

import numpy as np
import pytest

from lawful.perceive import lines


def _pixels(rng, shift_sd, length=160.0, per_px=3):
    """Pixels of a horizontal line: every 8-px piece shifted across by N(0, shift_sd), each pixel by N(0, 0.3)."""
    along = np.repeat(np.arange(length), per_px).astype(float)
    piece = rng.normal(0, shift_sd, int(length // lines.BIN) + 1)
    perp = piece[(along // lines.BIN).astype(int)] + rng.normal(0, 0.3, len(along))
    return along, perp


def test_angle_sd_matches_the_scatter_of_fitted_directions():
    """Over many lines, the fitted slope's spread equals the mean stated error (both shared and pixel noise)."""
    rng = np.random.default_rng(7)
    slopes, sds = [], []
    for _ in range(400):
        along, perp = _pixels(rng, 0.25)
        s = along - along.mean()
        slopes.append(float(s @ perp / (s @ s)))
        sds.append(lines._slope_sd(along - along.min(), perp))
    assert np.std(slopes) == pytest.approx(np.sqrt(np.mean(np.square(sds))), rel=0.12)
    # a per-pixel error alone would claim far less: sd of pixel noise / sqrt(sum s^2)
    naive = 0.3 / np.sqrt(np.sum((np.repeat(np.arange(160.0), 3) - 79.5) ** 2))
    assert np.std(slopes) > 4 * naive


def test_angle_sd_needs_four_pieces_and_is_zero_on_a_perfect_line():
    along = np.arange(24.0)
    assert np.isnan(lines._slope_sd(along, np.zeros_like(along)))  # three 8-px pieces
    along = np.arange(64.0)
    assert lines._slope_sd(along, 0.01 * along) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("from_vertical", [15.0, 37.0, 65.0])
@pytest.mark.parametrize("width", [3, 12, 16])
def test_a_thick_beam_cut_askew_by_its_region_keeps_its_direction(from_vertical, width):
    """A beam crossing a box region from its top edge to its bottom edge: the edges cut its ends along the rows,
    so the end pieces hold off-centre parts of its width. The direction read is the drawn one within 0.03°
    (before: up to 0.5° on a 16-px beam); a straight fit through every selected pixel turns by about
    cot(α)·w²/L²."""
    import math

    import cv2

    from lawful.perceive.regions import Probe, Reader

    W, H, SS, BEAM = 400, 300, 4, (250, 40, 40)
    a = math.radians(from_vertical)
    c, d = np.array([200.0, 150.0]), np.array([math.sin(a), math.cos(a)])
    img = np.full((H * SS, W * SS, 3), 190, np.uint8)
    p0, p1 = (tuple(int(round(v * 16)) for v in (c + s * 400 * d + 0.5) * SS) for s in (-1, 1))
    cv2.line(img, p0, p1, BEAM, width * SS, cv2.LINE_AA, 4)  # end points in 1/16 px of the supersampled frame
    img = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
    want = math.atan2(p1[1] - p0[1], p1[0] - p0[0])
    r = Reader([Probe("beam", "line", (60, 90, 340, 210), color=BEAM)], (W, H), 1.0, 1.0, False)
    r.add(img)
    assert abs(float(r.read(None)["beam"]["angle"][0]) - want) < math.radians(0.03)

    if width >= 12:
        ys, xs = np.nonzero(np.all(np.abs(img[90:211, 60:341].astype(int) - BEAM) < 60, axis=2))
        vx, vy, _, _ = cv2.fitLine(np.stack([xs, ys], 1).astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        plain = math.atan2(vy, vx) if vx > 0 else math.atan2(-vy, -vx)
        assert abs(plain - want) > math.radians(0.1)  # what the cut ends do to a fit through every pixel
