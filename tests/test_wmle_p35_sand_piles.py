"""P35 sand-pile repose angles: M1/M2 formulas, flank fits on hand-made profiles (stream, rounding to rows),
extraction from hand-made readings, rendered reference vs twin."""

import math

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p35_sand_pile_angles import SandPileAngles, angle_ratio, flank_angles, flank_asymmetry
from lawful.tracks import Tracks
from lawful.video import write_video

FLOOR = 300.0


def test_metric_formulas():
    m = angle_ratio(33.0, 33.0)
    assert m.residual == pytest.approx(0.0) and m.value == pytest.approx(1.0)
    m = angle_ratio(45.0, 33.75)
    assert m.residual == pytest.approx(1 / 3, abs=1e-12) and m.value == pytest.approx(q(1 / 3, 1.0), abs=1e-12)
    m = flank_asymmetry((33.0, 35.5), (34.0, 33.0))
    assert m.residual == pytest.approx(2.5) and m.value == pytest.approx(q(2.5, 90.0))
    assert angle_ratio(None, 33.0).status == "operational_zero"


def _profile(x, xa, h, left_deg, right_deg, region_top=150.0, stream=True):
    """First sand row per column (a pixel is sand when its centre is under the outline), NaN off the pile."""
    tl, tr = math.tan(math.radians(left_deg)), math.tan(math.radians(right_deg))
    y = FLOOR - h + np.where(x < xa, (xa - x) * tl, (x - xa) * tr)
    top = np.where(y < FLOOR - 0.5, np.ceil(y), np.nan)
    if stream:  # a 3-column stream falling onto the apex from above the region
        top[np.abs(x - xa) <= 1] = region_top
    return top


@pytest.mark.parametrize("left, right", [(33.0, 33.0), (30.0, 36.0)])
def test_flank_angles_of_a_hand_made_profile(left, right):
    x = np.arange(100, 400, dtype=float)
    got = flank_angles(x, _profile(x, 251.3, 90.0, left, right), FLOOR)
    assert got == pytest.approx((left, right), abs=0.3)  # rows quantised to whole pixels: ≪ 1°


def test_a_shade_that_hides_the_top_of_a_flank_does_not_tilt_it():
    """Studio P35 seed 8200: the apex's shade hid the top rows of a third of the small pile's left flank from the
    colour selection (read 22.0° for 33.9°). Columns read below the line are left out; a plain least-squares
    line through the same columns is tilted by degrees (checked)."""
    x = np.arange(100, 400, dtype=float)
    top = _profile(x, 251.3, 90.0, 33.0, 33.0)
    shade = (x > 200) & (x < 240)  # a third of the left flank's band, hidden by up to 12 rows
    top[shade] += np.round(12 * np.sin(np.pi * (x[shade] - 200) / 40))
    assert flank_angles(x, top, FLOOR) == pytest.approx((33.0, 33.0), abs=0.3)
    band = (x < 251) & (FLOOR - top >= 0.15 * 90) & (FLOOR - top <= 0.8 * 90)
    plain = math.degrees(math.atan(abs(np.polyfit(x[band], top[band], 1)[0])))
    assert abs(plain - 33.0) > 2


def test_a_flank_too_short_is_unread():
    x = np.arange(100, 400, dtype=float)
    assert flank_angles(x, _profile(x, 250.0, 4.0, 33, 33), FLOOR) is None


def _readings(x, xa, heights, left, right):
    top = np.array([_profile(x, xa, h, left, right) for h in heights])
    reg = RegionSeries.from_values("p", "profile", top=top)
    reg.columns = x
    return reg


def test_extraction_on_hand_made_readings():
    task = SandPileAngles()
    case, _ = task.make_case(0, 3)
    case.known["floor_y"] = FLOOR
    T = 30
    tr = Tracks.empty([], T, fps=24.0)
    tr.t = np.arange(T) / 24.0
    x = np.arange(0, 640, dtype=float)
    hs = np.linspace(60, 70, T)
    for small, e1 in ((33.0, 0.0), (44.0, 1 / 3)):
        tr.regions = {"pile_small": _readings(x[:250], 120.0, 0.5 * hs, small, small),
                      "pile_large": _readings(x[250:], 450.0, hs, 33.0, 33.0)}
        m = task.measure(case, tr)
        got = task.metrics(case, m)
        assert got["M1"].residual == pytest.approx(e1, abs=0.01)
        assert got["M2"].residual < 0.5
        assert m.notes["C_checks"]["piles_readable"] == 1.0


def test_reference_and_twin_end_to_end(tmp_path):
    task = SandPileAngles()
    case, _ = task.make_case(0, 1004)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P35"]
        assert sc.metrics["C"] >= 80
        P[law] = sc.metrics["P"]
    assert P["true"] >= 97
    assert P["anti"] < 92
