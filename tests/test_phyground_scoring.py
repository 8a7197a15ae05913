"""PhyGround's fusion formulas on a hand-computed table, the taxonomy, and the case set."""

from __future__ import annotations

import pytest

from lawful.judges.rubric import load_rubric
from lawful.suites.phyground.cases import CASES
from lawful.suites.phyground.scoring import aggregate_judgements, overall
from lawful.suites.phyground.taxonomy import DOMAINS, LAW_DOMAIN, LAWS


def row(case, crit, value, rollout=0, status="scored", model="M"):
    rub = "phyground-law" if crit in LAW_DOMAIN else "phyground-general"
    return {"suite": "phyground", "case_id": case, "model": model, "rollout": rollout, "rubric": rub,
            "criterion": crit, "value": value if status == "scored" else None, "status": status}


TABLE = [
    row("c1", "semantic_alignment", 5), row("c2", "semantic_alignment", 4), row("c3", "semantic_alignment", 3),
    *[row(c, "physical_temporal_validity", 4) for c in ("c1", "c2", "c3")],
    *[row(c, "object_persistence", 3) for c in ("c1", "c2", "c3")],
    row("c1", "gravity", 5, rollout=0), row("c1", "gravity", 3, rollout=1),  # rollouts average to 4 first
    row("c1", "collision", 1), row("c2", "gravity", 2), row("c2", "buoyancy", 5), row("c3", "reflection", 4),
    row("c3", "shadow", None, status="invalid"),                              # not a scored instance
]


def test_overall_is_half_general_half_physics():
    assert overall(3.0, 4.0) == 3.5


def test_sample_weighted_and_alternative_weightings_golden():
    m = aggregate_judgements(TABLE)["models"]["M"]
    general = (4 + 4 + 3) / 3  # dimension means: SA (5+4+3)/3, PTV 4, Persist 3
    assert m["general"] == pytest.approx(general)
    # instances: solid {gravity 4, gravity 2, collision 1}, fluid {buoyancy 5}, optical {reflection 4}
    assert m["domains"] == pytest.approx({"solid_body": 7 / 3, "fluid": 5.0, "optical": 4.0})
    assert m["instances"]["domains"] == {"solid_body": 3, "fluid": 1, "optical": 1}
    assert m["physics"] == pytest.approx(16 / 5)
    assert m["overall"] == pytest.approx(0.5 * general + 0.5 * 16 / 5)
    w = m["weightings"]
    # equal law within domain: solid = mean(gravity 3, collision 1) = 2, weights 3:1:1 kept
    assert w["equal_law_within_domain"]["domains"]["solid_body"] == pytest.approx(2.0)
    assert w["equal_law_within_domain"]["physics"] == pytest.approx((3 * 2 + 5 + 4) / 5)
    # equal law global: mean of per-law means (3, 1, 5, 4)
    assert w["equal_law_global"]["physics"] == pytest.approx(13 / 4)
    assert w["equal_law_global"]["overall"] == pytest.approx(0.5 * general + 0.5 * 13 / 4)
    assert m["unscored"] == {"invalid": 1}
    assert m["laws"] == pytest.approx({"gravity": 3.0, "collision": 1.0, "buoyancy": 5.0, "reflection": 4.0})


def test_models_are_separate():
    table = TABLE + [row("c1", "semantic_alignment", 1, model="N"), row("c1", "gravity", 2, model="N")]
    sec = aggregate_judgements(table)
    assert sec["scale"] == [1, 5] and set(sec["models"]) == {"M", "N"}
    assert sec["models"]["N"]["overall"] == pytest.approx(0.5 * 1 + 0.5 * 2)


def test_taxonomy_matches_rubric_and_paper_counts():
    assert [d for d in DOMAINS] == ["solid_body", "fluid", "optical"]
    counts = {d: sum(1 for law in LAWS if law.domain == d) for d in DOMAINS}
    assert counts == {"solid_body": 6, "fluid": 5, "optical": 2}
    rub = load_rubric("phyground-law")
    assert [(c.key, c.domain) for c in rub.criteria] == [(law.key, law.domain) for law in LAWS]
    assert [c.key for c in load_rubric("phyground-general").criteria] == [
        "semantic_alignment", "physical_temporal_validity", "object_persistence"]


def test_case_set_covers_every_law_with_explicit_outcomes():
    covered = {k for c in CASES for k in c.laws}
    assert covered == set(LAW_DOMAIN)
    for c in CASES:
        assert c.expected_outcome and 2 <= len(c.laws) <= 4  # PhyGround tags 2-4 laws per video
    drawn = {k for c in CASES if c.scene for k in c.laws}
    assert drawn == set(LAW_DOMAIN)  # every law has a drawn case with a law-correct and an anti-physics render
