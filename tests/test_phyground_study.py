"""PhyGround human-study quality control and split-half reliability on small hand-made tables."""

from __future__ import annotations

import pytest

from lawful.study.quality import annotator_quality, retained, split_half_reliability

DIMS = ("semantic_alignment", "physical_temporal_validity", "object_persistence")
GOOD = {"v1": (4, 3, 5), "v2": (2, 3, 2), "v3": (5, 4, 4), "v4": (1, 2, 2)}


def labels(ann, table, stay=60.0, plays=1):
    return [{"annotator": ann, "video": v, "dimension": d, "score": s, "stay_s": stay, "plays": plays}
            for v, scores in table.items() for d, s in zip(DIMS, scores)]


def test_peer_mae_golden():
    rows = [{"annotator": a, "video": "v", "dimension": d, "score": s}
            for a, sc in (("X", (1, 5)), ("Y", (3, 3)), ("Z", (5, 1))) for d, s in zip(DIMS, sc)]
    q = annotator_quality(rows)
    assert q["X"]["peer_mae"] == pytest.approx(3.0)  # |1 − 4| and |5 − 2|
    assert q["Y"]["peer_mae"] == pytest.approx(0.0)
    assert q["X"]["copy_paste_rate"] == 0.0


def test_quality_control_rules():
    flip = {"v1": (1, 5, 1), "v2": (5, 1, 5), "v3": (1, 1, 2), "v4": (5, 5, 4)}  # far from everyone
    rows = (labels("good1", GOOD) + labels("good2", GOOD) + labels("good3", GOOD)
            + labels("const", {v: (3, 3, 3) for v in GOOD})
            + labels("copier", {"v1": (5, 5, 5), "v2": (1, 1, 1), "v3": (3, 3, 3), "v4": (4, 4, 4)})
            + labels("fast_copier", {"v1": (5, 5, 5), "v2": (1, 1, 1), "v3": (3, 3, 3), "v4": (4, 2, 1)}, stay=8.0)
            + labels("disagree", flip)
            + labels("disagree_unplayed", flip, plays=0))
    q = annotator_quality(rows)
    assert not any(q[g]["remove"] for g in ("good1", "good2", "good3"))
    assert q["const"]["std"] == 0 and q["const"]["reasons"] == ["constant or near-constant scoring"]
    assert q["copier"]["copy_paste_rate"] == 1.0 and q["copier"]["reasons"] == ["per-video copy-paste pattern"]
    fc = q["fast_copier"]
    assert fc["copy_paste_rate"] == 0.75 and {"short_stay", "very_short_stay"} <= set(fc["flags"])
    assert fc["reasons"] == ["copy-paste with a behavioural anomaly"]
    assert q["disagree"]["peer_mae"] > 1.8 and "peer_mae_extreme" in q["disagree"]["flags"]
    assert not q["disagree"]["remove"]  # disagreement alone never removes
    assert q["disagree_unplayed"]["reasons"] == ["extreme peer disagreement with another anomaly"]
    kept = {r["annotator"] for r in retained(rows)}
    assert kept == {"good1", "good2", "good3", "disagree"}


def test_split_half_reliability_perfect_and_noisy():
    model_of = {f"{m}-{k}": m for m in "ABCD" for k in range(2)}
    quality = {"A": 1, "B": 2, "C": 3, "D": 4}
    rows = [{"annotator": f"a{i}", "video": v, "dimension": "physics", "score": quality[m] + (i % 2) * 0.1}
            for i in range(6) for v, m in model_of.items()]
    out = split_half_reliability(rows, model_of, n_splits=20, seed=1)
    assert out["splits"] == 20
    assert out["spearman"]["mean"] == pytest.approx(1.0) and out["kendall_tau_b"]["mean"] == pytest.approx(1.0)
    # annotators who rank the models in opposite orders: halves disagree on some splits
    rows2 = [{**r, "score": (5 - quality[model_of[r["video"]]]) if r["annotator"] in ("a0", "a1", "a2") else r["score"]}
             for r in rows]
    out2 = split_half_reliability(rows2, model_of, n_splits=50, seed=2)
    assert out2["spearman"]["mean"] < 0.9 and out2["spearman"]["interval"][0] <= out2["spearman"]["mean"]
