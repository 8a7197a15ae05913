"""world/liquids: area-sampled levels read back exactly, volume-conserving U-tube motion, buoyancy."""

import numpy as np
import pytest

from lawful.perceive.regions import Probe, Reader
from lawful.world import liquids as lq


def test_a_drawn_level_is_read_at_its_sub_pixel_row():
    img0 = np.full((200, 160, 3), 200, np.uint8)
    tank = lq.Tank([(30.5, 20.5, 130.5, 190.5)], (40, 90, 200), open_top=(0,))
    rows = [97.0, 97.25, 97.6, 101.93]
    reader = Reader([Probe("s", "level", (50, 24, 110, 186))], (160, 200), 1.0, 1.0, margin=False)
    for r in rows:
        reader.add(tank.draw(img0.copy(), {0: (r, 0.0)}))
    got = reader.read(None)["s"]["row"]
    assert np.abs(got - np.array(rows)).max() < 0.03


def test_u_tube_conserves_volume_and_settles():
    t = np.linspace(0, 6, 200)
    yl, yr = lq.u_tube_levels(t, 170.0, 40.0, 900.0, 4900.0, 1.2, 0.25)
    assert yl[0] == pytest.approx(130.0)
    np.testing.assert_allclose(900 * (yl - 170) + 4900 * (yr - 170), 0, atol=1e-9)  # A_l Δy_l = −A_r Δy_r
    assert abs(yl[-1] - 170) < 0.1 and abs(yr[-1] - 170) < 0.1
    yl, yr = lq.u_tube_levels(t, 170.0, 40.0, 900.0, 4900.0, 1.2, 0.25, offset=20.0)
    np.testing.assert_allclose(900 * (yl - 170) + 4900 * (yr - 170), 0, atol=1e-9)
    assert yr[-1] - yl[-1] == pytest.approx(20.0, abs=0.2)


def test_damped_release_and_draft():
    z = lq.damped(np.array([0.0, 10.0]), 5.0, 1.0, 0.3)
    assert z[0] == pytest.approx(5.0) and abs(z[1]) < 1e-6
    assert lq.ice_draft() == pytest.approx(0.917)
    assert lq.span_cover(0.25, 2.0, np.array([0.0, 1.0, 2.0])) == pytest.approx([0.25, 1.0, 0.5])


def _over_reference(img, color, alpha):
    """The composite written out plainly: every pixel, ``img += (color - img) * alpha``."""
    c = np.broadcast_to(np.asarray(color, np.float32), img.shape)
    img += (c - img) * alpha[..., None]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_over_equals_the_plain_composite_bit_for_bit(dtype):
    rng = np.random.default_rng(3)
    cols, rows = np.arange(40, 120, dtype=np.float32), np.arange(10, 70, dtype=np.float32)
    cases = [0.9 * lq.box_cover((55.3, 20.7, 90.2, 61.4), cols, rows),  # a block: only it is touched
             lq.surface_cover(30 + 5 * np.sin(cols / 7), rows) * lq.box_cover((41, 11, 118, 69), cols, rows),
             np.zeros((60, 80), np.float32)]  # nothing to paint
    nan = cases[0].copy()
    nan[5, 7] = np.nan  # a NaN counts as painted, as before
    for alpha in cases + [nan]:
        alpha = alpha.astype(dtype)
        for color in [(200, 30, 40), rng.uniform(0, 255, (60, 80, 3)).astype(np.float32)]:
            base = rng.uniform(0, 255, (60, 80, 3)).astype(np.float32)
            a, b = base.copy(), base.copy()
            lq.over(a, color, alpha)
            _over_reference(b, color, alpha)
            assert np.array_equal(a, b, equal_nan=True)


def test_box_block_is_box_cover_on_its_non_zero_block():
    cols, rows = np.arange(40, 120, dtype=np.float32), np.arange(10, 70, dtype=np.float32)
    for box in [(55.3, 20.7, 90.2, 61.4), (39.0, 9.0, 200.0, 100.0), (60.5, 30.0, 61.5, 45.25)]:
        full = lq.box_cover(box, cols, rows)
        rs, cs, blk = lq.box_block(box, cols, rows)
        assert np.array_equal(full[rs, cs], blk)
        full[rs, cs] = 0
        assert not full.any()  # nothing outside the block
    assert lq.box_block((0.0, 0.0, 20.0, 5.0), cols, rows) is None
