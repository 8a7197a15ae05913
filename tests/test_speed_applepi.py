"""Apple-π's built-in writers doing less work for the same answers: the reference's Deduction clip rendered
again instead of read from the PNGs (only when the files show the same renderer and motion)."""

import json

import numpy as np

from lawful.suites.applepi import build as B
from lawful.suites.applepi import dataset as D
from lawful.suites.applepi import models as M


def _case(root):
    return D.GTCase(root, B.write_case(root, "FreeFall", 1, seed=3, width=96, height=64, duration=0.5))


def test_reference_deduction_renders_exactly_the_gt_pngs(tmp_path):
    case = _case(tmp_path)
    n = case.n_gt_phys
    rendered = M._rendered_gt(case, n)
    files = sorted((case.dir / "rgb").glob("*.png"))
    assert rendered is not None and len(rendered) == n
    assert all(np.array_equal(f, D.imread(p)) for f, p in zip(rendered, files))
    assert all(np.array_equal(a, b) for a, b in zip(M.deduction_frames("reference", case)[1:], rendered))


def test_a_case_the_renderer_does_not_reproduce_is_read_from_its_files(tmp_path):
    case = _case(tmp_path)
    n = case.n_gt_phys
    last = sorted((case.dir / "rgb").glob("*.png"))[n - 1]
    D.imwrite(last, 255 - D.imread(last))  # a last frame this renderer would not draw
    assert M._rendered_gt(D.GTCase(tmp_path, case.entry), n) is None
    assert np.array_equal(M.deduction_frames("reference", D.GTCase(tmp_path, case.entry))[n], D.imread(last))

    moved = _case(tmp_path / "b")
    ext = json.loads((moved.dir / "lawful.json").read_text())
    ext["truth"]["position_m"][-1][0][0] += 0.001  # motion other than this simulation's
    (moved.dir / "lawful.json").write_text(json.dumps(ext))
    assert M._rendered_gt(D.GTCase(tmp_path / "b", moved.entry), n) is None
