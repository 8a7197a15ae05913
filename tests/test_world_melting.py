"""world/melting.py: Jurin and Lucas–Washburn, freezing expansion, melt level in brine, surface-area melting
against their closed forms; drawing puts a tube's column and the ice where it is told."""

import math

import numpy as np
import pytest

from lawful.world import melting as mt


def test_jurin_height_water_in_a_half_millimetre_tube_and_its_inverse_radius_law():
    h = mt.jurin_height(0.5e-3)
    assert h == pytest.approx(2 * 0.072 / (1000 * 9.81 * 0.5e-3))  # 29.4 mm
    assert h == pytest.approx(0.02936, rel=1e-3)
    assert mt.jurin_height(0.25e-3) / h == pytest.approx(2.0)
    assert mt.jurin_height(0.5e-3, theta_deg=60) == pytest.approx(0.5 * h)


def test_washburn_rise_solves_its_implicit_law():
    tau, h_eq = 0.7, 120.0
    t = np.array([0.0, 0.05, 0.3, 1.0, 3.0])
    h = mt.washburn_rise(t, h_eq, tau)
    assert h[0] == 0.0
    u = h[1:] / h_eq
    assert t[1:] / tau == pytest.approx(-u - np.log(1 - u), rel=1e-9)  # t/τ = −u − ln(1 − u)
    assert np.all(np.diff(h) > 0) and h[-1] < h_eq
    # early on gravity is negligible: h² ≈ 2 h_eq² t / τ (Lucas–Washburn)
    assert mt.washburn_rise(1e-4, h_eq, tau) == pytest.approx(h_eq * math.sqrt(2e-4 / tau), rel=0.01)
    assert mt.washburn_tau(0.8, 0.3, 0.6) == pytest.approx(0.1)


def test_freezing_expansion_and_fraction():
    assert mt.freezing_expansion() == pytest.approx(1000 / 917)
    f = mt.freeze_fraction([0.0, 1.0, 2.0, 3.0, 4.0], 1.0, 3.0)
    assert f.tolist() == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.0])


def test_melt_level_change_in_brine():
    # 1 kg of ice in brine of 1200 kg/m³, tank 0.02 m²: Δh = 1 (1/1000 − 1/1200) / 0.02 = 8.33 mm
    assert mt.melt_level_change(1.0, 0.02, 1000.0, 1200.0) == pytest.approx(1 / 120, rel=1e-12)
    assert mt.melt_level_change(1.0, 0.02, 1000.0, 1000.0) == 0.0  # fresh water: no change


def test_surface_area_melting_makes_pieces_melt_n_cube_root_times_sooner():
    s_block, n = 60.0, 27
    s_piece = s_block / n ** (1 / 3)  # 20: the same mass in 27 pieces
    speed = 10.0
    t = np.array([0.0, 1.0, 2.0, 6.0])
    assert mt.melted_fraction(t, [s_piece] * n, speed).tolist() == pytest.approx(
        [0.0, 1 - 0.5**3, 1.0, 1.0])
    assert mt.melted_fraction(t, [s_block], speed).tolist() == pytest.approx(
        [0.0, 1 - (50 / 60) ** 3, 1 - (40 / 60) ** 3, 1.0])
    # dm/dt = −k S with m = s³, S = 6 s²: numerically integrated edge agrees with the constant recession
    s, dt = s_block, 1e-4
    for _ in range(int(1.0 / dt)):
        m = s**3 - 3 * speed * s**2 * dt  # k chosen so that ds/dt = −speed
        s = m ** (1 / 3)
    assert s == pytest.approx(50.0, rel=1e-3)


def test_tube_drawing_puts_the_column_at_its_row():
    img = np.full((120, 60, 3), 200, np.uint8)
    mt.draw_tube(img, (20.5, 10.5, 40.5, 110.5), 60.25, (40, 90, 200), (128, 138, 146), meniscus_px=0.0)
    col = img[:, 30].astype(float)
    above, below = col[40], col[80]
    share = (col[55:66] - below) @ (above - below) / ((above - below) @ (above - below))
    assert 55 - 0.5 + share.sum() == pytest.approx(60.25, abs=0.05)  # the area-sampled edge sits at its row


def test_pieces_layer_paints_ice_above_and_seen_through_below_the_waterline():
    win = np.zeros((40, 40, 3), np.float32)
    cols, rows = np.arange(40, dtype=np.float32), np.arange(40, dtype=np.float32)
    mt.draw_pieces([(10, 10, 30, 30)], 20.0, (0, 0, 200), ice=(240, 240, 240), seen_through=0.5)(win, cols, rows)
    assert win[15, 20].tolist() == pytest.approx([240, 240, 240])
    assert win[25, 20].tolist() == pytest.approx([120, 120, 220])
    assert win[5, 5].tolist() == [0, 0, 0]
