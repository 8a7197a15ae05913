"""P7 hanging chain: catenary fit, metric formulas, extraction from bead tracks, end to end."""

import numpy as np
import pytest

from lawful.score.wmle import q
from lawful.suites.wmle.p07_hanging_chain import (
    BEADS, HangingChain, catenary_fit_metric, catenary_y, fit_catenary, support_level_metric,
)
from lawful.suites.wmle.validate import validate_variant
from lawful.tracks import Tracks

def _tracks(t, objects, r=10.0):
    return Tracks.from_positions(t, objects, radius=r)


def test_fit_catenary_recovers_parameters():
    x = np.linspace(100, 500, 9)
    a, x0, c, rmse = fit_catenary(x, catenary_y(x, 180.0, 310.0, 450.0))
    assert (a, x0, c) == pytest.approx((180.0, 310.0, 450.0), rel=1e-6)
    assert rmse < 1e-6


def test_metric_formulas():
    m = catenary_fit_metric(2.0, 100.0)
    assert m.residual == pytest.approx(0.02, abs=1e-12) and m.value == pytest.approx(q(0.02, 0.10), abs=1e-6)
    m = support_level_metric(-4.0, 400.0)
    assert m.residual == pytest.approx(0.01, abs=1e-12) and m.value == pytest.approx(2 / 3, abs=1e-6)


@pytest.mark.parametrize("law", ["true", "anti"])
def test_extraction_from_bead_tracks(law):
    task = HangingChain()
    case, _ = task.make_case(0, 5)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    beads = task._shape(case, t, law)
    m = task.measure(case, _tracks(t, {b: (beads[:, i, 0], beads[:, i, 1]) for i, b in enumerate(BEADS)}, 8.0))
    s = task.metrics(case, m)
    e1 = 0.0 if law == "true" else case.known["anti_e1"]
    assert s["M1"].residual == pytest.approx(e1, abs=1e-3)
    assert s["M2"].residual == pytest.approx(0.0, abs=1e-9)


def test_reference_beats_twin_end_to_end():
    r = validate_variant("hanging_chain", 0, 11)
    assert r["ref_P"] >= 95 and r["ref_C"] >= 80
    assert r["anti_P"] < r["ref_P"] - 5


def test_a_bead_out_of_view_while_settled_counts_at_its_last_rest():
    """A pan takes the right end bead (on its support, never moving) out of the picture for the last 40 % of
    the clip: it is measured where it rested; a middle bead that leaves while still swinging is unresolved."""
    task = HangingChain()
    case, _ = task.make_case(0, 5)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    beads = task._shape(case, t, "true")
    tr = _tracks(t, {b: (beads[:, i, 0], beads[:, i, 1]) for i, b in enumerate(BEADS)}, 8.0)
    n = len(t)
    gone = np.arange(n) >= int(0.6 * n)
    right = int(np.argmax(beads[0, :, 0]))
    tr.visible[gone, right] = False
    m = task.measure(case, tr)
    assert m.notes["from_last_sightings"] == [BEADS[right]]
    assert task.metrics(case, m)["M1"].residual == pytest.approx(0.0, abs=1e-3)
    mid = BEADS[len(BEADS) // 2]
    early = np.arange(n) >= int(0.05 * n)  # gone right after the release, while the chain still moves
    tr.visible[early, BEADS.index(mid)] = False
    m = task.measure(case, tr)
    assert "not visible while the chain should be at rest" in m.notes["unresolved"]
