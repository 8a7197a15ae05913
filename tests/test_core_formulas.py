import math

import numpy as np
import pytest

from lawful.score.consistency import consistency, directional_consistency, mean_std


def test_consistency_formula():
    assert consistency(2.0, 2.0) == 1.0
    assert consistency(1.0, 3.0) == pytest.approx(0.5)
    # the paper: S = 0.95 is roughly a 10 % asymmetry
    assert consistency(1.0, 1.1) == pytest.approx(1 - 0.1 / 2.1)
    assert consistency(0.0, 0.0) == 1.0
    assert consistency(-1.0, 1.0) == 0.0


def test_dcs():
    y = np.array([0, 1, 3, 6, 10.0])
    assert directional_consistency(y, 1.0) == pytest.approx(1.0)
    assert directional_consistency(y[::-1], 1.0) == pytest.approx(-1.0)
    # one step of four against the direction: (1 + 1 + 1 - 1) / 4
    assert directional_consistency(np.array([0, 1, 2, 3, 2.0]), 1.0) == pytest.approx(0.5)
    # steps below eps are ignored; nothing moving -> undefined
    assert math.isnan(directional_consistency(np.zeros(5), 1.0))
    # 2-D with a per-step direction (pendulum: towards the centre)
    p = np.array([[10.0, 0], [8, 0], [5, 0]])
    d = np.array([[-1.0, 0], [-1, 0]])
    assert directional_consistency(p, d) == pytest.approx(1.0)


def test_mean_std():
    assert mean_std([1.0, 3.0]) == (2.0, 1.0)
    assert all(math.isnan(v) for v in mean_std([]))
