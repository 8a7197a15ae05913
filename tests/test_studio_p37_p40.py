"""Studio scenes of WMLE P37, P39 and P40: a physical quantity read off the rendered frames against the scene's
parameters (the law the clip shows), and the twin breaking it.

Only a few frames of each clip are rendered (the recording is cut to them) and read with the tasks' own region
probes; ``lawful validate --style studio`` scores whole clips.
"""

import math

import numpy as np
import pytest

from studio_support import E, check_case, one_subframe  # noqa: F401 (GL set-up, or skip the module)

from lawful.case import load_case  # noqa: E402
from lawful.perceive.regions import Reader  # noqa: E402
from lawful.runner.evaluate import task_for  # noqa: E402
from lawful.world.studio import StudioStyle  # noqa: E402

SEED = 1000


def _frames(monkeypatch, sc, law, which):
    """Frames ``which`` (indices, negative from the end) of the scene's ``law`` clip, rendered alone."""
    real = E.World.render

    def cut(self, rec, effects=True):
        n = rec.qpos.shape[0]
        ii = [i % n for i in which]
        return real(self, E.Recording(rec.times[ii], rec.qpos[ii], rec.mocap[ii], rec.xpos[ii]), effects)

    monkeypatch.setattr(E.World, "render", cut)
    try:
        return list(sc.render(law))
    finally:
        monkeypatch.setattr(E.World, "render", real)


def _read(sc, frames):
    """The task's probes read on ``frames`` (case pixels, no camera compensation)."""
    case = sc.case
    rd = Reader(task_for(case).probes(case), (case.width, case.height), 1.0, 1.0, False)
    for f in frames:
        rd.add(f)
    return rd.read(None)


def test_capillary_columns_stand_at_jurin_heights(monkeypatch, one_subframe, tmp_path):
    """P37: the settled columns' rises read off the last frame are the projected Jurin heights (h ∝ 1/r), and the
    twin's are swapped."""
    sc = StudioStyle().make("wmle", "capillary_rise", 0, SEED)
    check_case(sc, tmp_path)
    k = sc.case.known
    ratio = k["radius_mm"]["wide"] / k["radius_mm"]["narrow"]
    assert k["h_m"]["narrow"] / k["h_m"]["wide"] == pytest.approx(ratio, rel=1e-9)  # Jurin: h r constant
    for law in ("true", "anti"):
        regs = _read(sc, [sc.first_frame] + _frames(monkeypatch, sc, law, [-1]))
        y0 = regs["reservoir"]["row"][1]
        h = {a: y0 - regs[f"tube_{a}"]["row"][1] for a in ("narrow", "wide")}
        want = k["h_px"] if law == "true" else {"narrow": k["h_px"]["wide"], "wide": k["h_px"]["narrow"]}
        for a in h:
            assert h[a] == pytest.approx(want[a], abs=1.5), (law, a)
    assert regs["reservoir"]["row"][0] == pytest.approx(k["y_reservoir"], abs=1.0)


def test_merged_drop_keeps_the_volume(monkeypatch, one_subframe, tmp_path):
    """P40: equivalent radii of the drop-coloured components before contact and after settling give
    r_f³ = r1³ + r2³ within 1 % (twin: r_f = √(r1² + r2²), 10–25 % more volume)."""
    sc = StudioStyle().make("wmle", "droplet_coalescence", 0, SEED)
    check_case(sc, tmp_path)
    out = {}
    for law in ("true", "anti"):
        first, last = _frames(monkeypatch, sc, law, [0, -1])
        reg = _read(sc, [first, last])["drops"]
        r = np.sqrt(np.asarray(reg["area"], float) / math.pi)
        r1, r2 = sorted(r[0], reverse=True)  # components come left to right
        assert np.isnan(r[1, 1])  # one drop at the end
        out[law] = r[1, 0] ** 3 / (r1**3 + r2**3)
    rp = sc.case.known["r_px"]
    assert r1 == pytest.approx(rp["big"], rel=0.01) and r2 == pytest.approx(rp["small"], rel=0.01), (r1, r2)
    assert out["true"] == pytest.approx(1.0, abs=0.01)
    assert out["anti"] == pytest.approx(sc.case.truth.quantities["anti_e1"] + 1.0, abs=0.01)


def test_partition_curvature_follows_laplace(monkeypatch, one_subframe, tmp_path):
    """P39: the films' circle fits on the first frame give 1/r_p = 1/r_s − 1/r_l within 5 %, the partition
    bulging into the large bubble; the twin (odd seed: reversed) bulges into the small one."""
    sc = StudioStyle().make("wmle", "double_bubble", 1, SEED + 1)
    case = sc.case  # the twin's partition differs from the first frame on (the films are still): no shared frame
    assert task_for(case).case_problem(case) == "" and load_case(case.save(tmp_path)) == case
    k = sc.case.known
    cs, cl = (np.asarray(k["centres"][b]) for b in ("small", "large"))
    for law in ("true", "anti"):
        regs = _read(sc, _frames(monkeypatch, sc, law, [0]))
        r = {f: float(regs[f"film_{f}"]["r"][0, 0]) for f in ("small", "large", "partition")}
        p = regs["film_partition"]
        side = np.sign((p["cx"][0, 0] - p["x"][0, 0]) * (cs[0] - cl[0]) + (p["cy"][0, 0] - p["y"][0, 0]) * (cs[1] - cl[1]))
        assert r["small"] == pytest.approx(k["r_small"], rel=0.02) and r["large"] == pytest.approx(k["r_large"], rel=0.02)
        kappa = side / r["partition"]
        want = (1 / k["r_small"] - 1 / k["r_large"]) * (1 if law == "true" else -1)
        assert kappa == pytest.approx(want, rel=0.05), law
