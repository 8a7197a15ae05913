"""Studio P20: the four beams drawn are what Snell's law (or the twin's indices) says, and the case reads them.

A pipeline check at a small frame with one blur sub-frame: the task's own probes read the first frame;
each beam's incidence is the sweep's start, a refraction gives its index within the readings' slack,
a beam past its critical angle shows a reflection at the incidence angle and no refraction. (The twin's
beams bend differently from the first frame on, as in the flat style: it does not share the first frame.)
"""

import math

import numpy as np
import pytest

from studio_support import one_subframe  # noqa: F401 (GL set-up, or skip the module)

from lawful.case import load_case  # noqa: E402
from lawful.runner.evaluate import task_for  # noqa: E402
from lawful.perceive.regions import Reader  # noqa: E402
from lawful.suites.base import get_suite  # noqa: E402
from lawful.world.studio import StudioStyle  # noqa: E402
from lawful.world.studio import _wmle_p08_p15 as C  # noqa: E402


@pytest.fixture
def small(monkeypatch, one_subframe):  # noqa: F811
    from lawful.world.studio import scenes_wmle_p20

    monkeypatch.setattr(C, "VARIANTS", (C.Variant("small", (320, 180), 0.84),))
    monkeypatch.setattr(scenes_wmle_p20, "FPS", 6.0)


def _first(sc, law):
    probes = get_suite("wmle").task(sc.case.task).probes(sc.case)
    gen = sc.render(law)
    f = next(gen)
    gen.close()
    rd = Reader(probes, (sc.case.width, sc.case.height), 1.0, 1.0, margin=False)
    rd.add(f)
    return rd.read(None)


def _from_vertical(r) -> float:
    a = float(r["angle"][0])
    return math.degrees(math.acos(abs(math.sin(a))))


def test_beams_follow_snell_and_reflect_past_the_critical_angle(small, tmp_path):
    sc = StudioStyle().make("wmle", "total_internal_reflection", 0, 1000)
    assert task_for(sc.case).case_problem(sc.case) == "" and load_case(sc.case.save(tmp_path)) == sc.case
    k = sc.case.known
    seen = {"refraction": 0, "reflection": 0}
    for law in ("true", "anti"):
        r = _first(sc, law)
        assert r["surface"].ok[0] and float(r["surface"]["row"][0]) == pytest.approx(k["surface_y"], abs=1.5)
        for j, b in enumerate(k["beams"]):
            n = 1.333 if law == "true" else k["anti_n"][j]
            th = b["sweep_deg"][0]
            assert r[f"in_{j}"].ok[0] and _from_vertical(r[f"in_{j}"]) == pytest.approx(th, abs=1.5)
            s = n * math.sin(math.radians(th))
            if s < 0.97:  # refracted (and not grazing)
                assert r[f"out_{j}"].ok[0]
                got = math.sin(math.radians(_from_vertical(r[f"out_{j}"]))) / math.sin(math.radians(th))
                assert got == pytest.approx(n, abs=0.05)
                seen["refraction"] += 1
            elif s > 1.0:  # totally reflected: no beam in the air, one back in the water at the incidence angle
                assert not r[f"out_{j}"].ok[0] and r[f"back_{j}"].ok[0]
                assert _from_vertical(r[f"back_{j}"]) == pytest.approx(th, abs=1.5)
                seen["reflection"] += 1
    assert seen["refraction"] and seen["reflection"]
    assert np.ptp(k["anti_n"]) > 0.4  # the twin's beams disagree on the index
