"""What every studio-style test shares: the GL backend (set before MuJoCo is imported; the module skips
its importer where MuJoCo cannot render offscreen), one-sub-frame rendering, and the checks a scene's
case must pass: what a user would write, round-tripping, boxes and colours taken from the first frame,
and twins that share that frame."""

import dataclasses
import os

import numpy as np
import pytest

os.environ.setdefault("MUJOCO_GL", "egl")  # before mujoco is first imported
pytest.importorskip("mujoco")
from lawful.world.studio import engine as E  # noqa: E402

if not E.gl_available():
    pytest.skip("no offscreen GL backend (EGL/OSMesa)", allow_module_level=True)

from lawful.case import load_case  # noqa: E402
from lawful.runner.evaluate import task_for  # noqa: E402


@pytest.fixture
def one_subframe(monkeypatch):
    """Render without sub-frame blur: a pipeline check needs no blur, and it triples the speed."""
    real = E.random_look
    monkeypatch.setattr(E, "random_look", lambda rng: dataclasses.replace(real(rng), subframes=1))


def check_case(sc, tmp_path, min_side: float = 6, colour_at_centre=lambda o: True) -> None:
    """The scene's case is complete for its task and round-trips; each box lies in the frame, is at least
    ``min_side`` px wide and (where ``colour_at_centre(o)``) its centre pixel has the stated colour; the
    law clip and its twin both start with the first frame."""
    case = sc.case
    assert task_for(case).case_problem(case) == ""
    assert load_case(case.save(tmp_path)) == case
    h, w = sc.first_frame.shape[:2]
    assert (w, h) == (case.width, case.height)
    for o in case.objects:
        x0, y0, x1, y1 = o.box
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h and x1 - x0 >= min_side
        if colour_at_centre(o):
            cx, cy = int((x0 + x1) / 2), int((y0 + y1) / 2)
            assert np.abs(sc.first_frame[cy, cx].astype(int) - o.color).max() < 60
    for law in ("true", "anti"):
        gen = sc.render(law)
        assert np.array_equal(next(gen), sc.first_frame)
        gen.close()
