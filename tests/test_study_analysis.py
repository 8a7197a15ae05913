"""Study assignment, quality control and analyses on simulated annotators whose truth is known."""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict

import numpy as np
import pytest

pytest.importorskip("sqlalchemy")
from sqlalchemy import select  # noqa: E402

from lawful.store import Store, VideoKey  # noqa: E402
from lawful.study.assign import StudyError, balanced_assignment, create_study  # noqa: E402
from lawful.study.db import Assignment, Item, StudyDB, default_url  # noqa: E402
from lawful.study.qc import apply_qc, submissions, two_round_qc  # noqa: E402
from lawful.study.report import build_report, krippendorff_alpha  # noqa: E402
from lawful.study.simulate import demo_run, simulate_study  # noqa: E402

MODELS = ("reference", "counterfactual", "static")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return demo_run(tmp_path_factory.mktemp("run") / "run", models=MODELS, n_cases=6, frames=4)


def make(run, tmp_path, name, **kw):
    info = create_study(run, tmp_path / name, **kw)
    return StudyDB(default_url(tmp_path / name)), info


def test_balanced_assignment_rules():
    rng = random.Random(3)
    items = [(i, f"case{i % 7}", rng.randint(1, 4)) for i in range(40)]
    anns = list(range(25))
    plan = balanced_assignment(items, anns, rng)
    reached = Counter(i for its in plan.values() for i in its)
    assert all(reached[i] == t for i, _, t in items)  # every item reaches its target
    case_of = {i: c for i, c, _ in items}
    for its in plan.values():
        cases = [case_of[i] for i in its]
        assert len(cases) == len(set(cases))  # no prompt twice
    loads = [len(v) for v in plan.values()]
    assert max(loads) - min(loads) <= 1  # balanced
    with pytest.raises(StudyError, match="annotators"):
        balanced_assignment([(1, "c", 5), (2, "c", 5)], list(range(9)), rng)


def test_create_study_assignment_in_the_database(run, tmp_path):
    db, info = make(run, tmp_path, "s", annotators=12, per_video=4, attention_every=3, seed=1)
    with db.read() as s:
        rows = s.execute(select(Assignment, Item).join(Item, Item.id == Assignment.item_id)).all()
    per_item = Counter(it.id for _, it in rows)
    assert len(per_item) == 18 and set(per_item.values()) == {4}
    seen = defaultdict(list)
    for a, it in rows:
        seen[a.annotator_id].append(it.case_id)
    assert all(len(c) == len(set(c)) for c in seen.values())
    assert info["load_max"] - info["load_min"] <= 1 and sum(map(len, seen.values())) == 72
    checks = Counter(a.annotator_id for a, _ in rows if a.attention is not None)
    assert all(checks[k] == math.ceil(len(v) / 3) for k, v in seen.items())
    with pytest.raises(StudyError, match="add annotators"):
        create_study(run, tmp_path / "too-few", annotators=5, per_video=2)
    db.close()


def test_qc_removes_exactly_the_bad_annotators(run, tmp_path):
    db, _ = make(run, tmp_path, "qc", annotators=14, per_video=4, attention_every=10, seed=2)
    bad = {"annotator-010": "constant", "annotator-011": "copy", "annotator-012": "rusher",
           "annotator-013": "contrarian", "annotator-014": "inattentive"}
    assert simulate_study(db, bad, sigma=0.5, seed=2) == 72
    res = apply_qc(db, min_videos=3)
    assert set(res["removed"]) == set(bad)
    d = res["details"]
    assert "constant or near-constant scoring" in d["annotator-010"]["reasons"]
    assert "per-video copy-paste pattern" in d["annotator-011"]["reasons"]
    assert "copy-paste with a behavioural anomaly" in d["annotator-012"]["reasons"]
    assert {"no_plays", "very_short_stay"} <= set(d["annotator-012"]["flags"])
    assert d["annotator-013"]["peer_mae"] > 1.8 and "no_plays" in d["annotator-013"]["flags"]
    assert d["annotator-014"]["reasons"] == ["failed attention checks"]
    # a low-volume rule: nobody has 3 or more submissions here... until the bar is raised
    assert set(apply_qc(db, min_videos=6)["removed"]) > set(bad)
    apply_qc(db, min_videos=3)
    db.close()


def test_second_round_measures_peers_without_the_removed():
    def rows(ann, scores, plays=1):
        return [{"annotator": ann, "video": f"v{i}", "dimension": d, "score": s, "stay_s": 60, "plays": plays,
                 "watch_s": 3.0} for i, pair in enumerate(scores) for d, s in zip(("semantic_alignment", "gravity"), pair)]
    good = [(5, 4), (4, 5), (5, 4), (4, 5)]
    data = rows("g1", good) + rows("g2", good) + rows("x", [(a - 3, b - 3) for a, b in good], plays=0)
    data += [r for k in range(3) for r in rows(f"c{k}", [(1, 1)] * 4)]  # constant: removed in round 1
    from lawful.study.quality import annotator_quality

    first = annotator_quality(data)
    assert first["x"]["peer_mae"] == pytest.approx(0.9) and not first["x"]["remove"]  # bad peers hide x
    kept = {a for a, q in first.items() if not q["remove"]}
    second = annotator_quality([r for r in data if r["annotator"] in kept])
    assert kept == {"g1", "g2", "x"} and second["x"]["peer_mae"] == pytest.approx(3.0) and second["x"]["remove"]
    # the same through the study's two-round function (submissions in its layout)
    subs = [{"kind": "rate", "annotator": r["annotator"], "video": r["video"], "case_id": r["video"], "model": "m",
             "rollout": 0, "answers": {}, "stay_s": 60, "plays": 0 if r["annotator"] == "x" else 1, "watch_s": 3.0,
             "attention": None, "item": r["video"]} for r in data if r["dimension"] == "gravity"]
    for sub in subs:
        sub["answers"] = {r["dimension"]: str(r["score"]) for r in data
                          if r["annotator"] == sub["annotator"] and r["video"] == sub["video"]}
    res = two_round_qc(subs, min_videos=0)
    assert res["x"]["remove"] and res["x"]["round"] == 2 and res["c0"]["round"] == 1 and not res["g1"]["remove"]


def test_pair_preference_recovers_p_and_judge_pairwise_accuracy(tmp_path):
    run = demo_run(tmp_path / "run2", models=("reference", "counterfactual"), n_cases=6, frames=4)
    with Store(run / "results.sqlite") as st:  # two judges: one right about every pair, one always wrong
        for case in [p.stem for p in (run / "cases" / "phyground").glob("*.json")]:
            for model, good in (("reference", 4.0), ("counterfactual", 2.0)):
                for crit in ("semantic_alignment", "physical_temporal_validity", "object_persistence", "gravity"):
                    for judge, v in (("right@x", good), ("wrong@x", 6 - good)):
                        rubric = "phyground-law" if crit == "gravity" else "phyground-general"
                        st.put_judgement(VideoKey("phyground", case, model, 0), rubric, crit, v, "scored", judge=judge)
    db, _ = make(run, tmp_path, "pairs", annotators=60, per_video=60, mode="pair")
    p = 0.8
    simulate_study(db, {}, p=p, seed=5)
    r = build_report(db, n_splits=5)
    (pref,) = r["preferences"]
    assert pref["votes"] == 360
    se = math.sqrt(p * (1 - p) / 360)
    share = pref["prefer_b"] if pref["model_b"] == "reference" else pref["prefer_a"]
    assert abs(share - p) < 3 * se and pref["tie"] == 0
    # two annotators of an item agree when both pick the law-correct clip or both miss it
    assert r["agreement"]["pairwise_percent_agreement"] == pytest.approx(share ** 2 + (1 - share) ** 2, abs=0.02)
    assert r["judges"]["right@x"]["pairwise_accuracy"]["A_pair_conf"] == 1.0
    assert r["judges"]["wrong@x"]["pairwise_accuracy"]["A_pair_conf"] == 0.0
    db.close()


def truth_table(models, cases, seed=0):
    rng = random.Random(seed)
    return {(m, c): rng.uniform(2.0, 4.0) for m in models for c in cases}


@pytest.mark.parametrize("sigma", [0.4, 1.0])
def test_agreement_and_scores_recover_the_noise(run, tmp_path, sigma):
    """Labels = round(truth + N(0, σ)): Krippendorff's α ≈ var(truth) / (var(truth) + σ² + rounding)."""
    cases = [p.stem for p in (run / "cases" / "phyground").glob("*.json")]
    t = truth_table(MODELS, cases)
    db, _ = make(run, tmp_path, f"noise{sigma}", annotators=24, per_video=8, attention_every=0)
    simulate_study(db, {}, sigma=sigma, truth=lambda m, c, q: t[(m, c)], seed=7)
    r = build_report(db, n_splits=10)
    # expectation by direct simulation of the same generative process (no app code involved)
    rng = np.random.default_rng(0)
    tv = np.array(list(t.values()))
    draws = np.clip(np.round(tv[:, None] + rng.normal(0, sigma, (len(tv), 4000))), 1, 5)
    within = draws.var(axis=1).mean()
    expected = 1 - within / (within + tv.var())
    n_units = r["agreement"]["units"]
    se = (1 - expected) * math.sqrt(2 / n_units) + 0.02  # α's sampling error over this many units
    assert abs(r["agreement"]["alpha_all"] - expected) < 3 * se, (r["agreement"], expected)
    # per-model human means recover the truth means within their standard error
    for m in MODELS:
        true_mean = np.mean([t[(m, c)] for c in cases])
        assert abs(r["human"]["models"][m]["overall"] - true_mean) < 4 * math.sqrt(within / (8 * len(cases) * 3)) + 0.05
    rel = r["reliability"]
    assert set(rel) == {"general", "physics", "overall"} and all(v["splits"] == 10 for v in rel.values())
    db.close()


def test_split_half_reliability_follows_noise(run, tmp_path):
    """Models far apart and little noise: halves agree perfectly; models close and much noise: they do not."""
    cases = [p.stem for p in (run / "cases" / "phyground").glob("*.json")]
    out = {}
    for name, gap, sigma in (("clear", 1.2, 0.3), ("noisy", 0.05, 1.5)):
        q = {m: 2.0 + gap * i for i, m in enumerate(MODELS)}
        db, _ = make(run, tmp_path, name, annotators=24, per_video=8, attention_every=0)
        simulate_study(db, {}, sigma=sigma, truth=lambda m, c, k, q=q: q[m], seed=11)
        out[name] = build_report(db, n_splits=30)["reliability"]
        db.close()
    for view in ("general", "physics", "overall"):
        assert out["clear"][view]["spearman"]["mean"] == pytest.approx(1.0)
        assert out["noisy"][view]["spearman"]["mean"] < 0.8
        assert out["noisy"][view]["spearman"]["interval"][0] < 0


def test_krippendorff_alpha_golden():
    assert krippendorff_alpha({1: [1, 1], 2: [5, 5], 3: [3, 3]}) == pytest.approx(1.0)  # perfect agreement
    # units (1,3) and (2,2), n = 4: D_o = (2·(1−3)²/(2−1))/4 = 2; pooled 1,3,2,2: ordered-pair sum of
    # squared differences 16 over 4·3 pairs, D_e = 4/3; α = 1 − 2/(4/3) = −0.5
    assert krippendorff_alpha({1: [1, 3], 2: [2, 2]}) == pytest.approx(-0.5)
    assert math.isnan(krippendorff_alpha({1: [2]}))


def test_report_judge_vs_human_against_the_truth(run, tmp_path):
    """A judge equal to the truth and one 0.5 above it: relative bias is 0 and 0.5 / human mean."""
    import shutil

    run2 = tmp_path / "runj"
    shutil.copytree(run, run2)
    cases = sorted(p.stem for p in (run2 / "cases" / "phyground").glob("*.json"))
    t = truth_table(MODELS, cases, seed=4)
    db, _ = make(run2, tmp_path, "judge", annotators=24, per_video=8, attention_every=0)
    simulate_study(db, {}, sigma=0.0, truth=lambda m, c, q: round(t[(m, c)]), seed=1)
    subs = submissions(db)
    keys = {(s["case_id"], s["model"], q) for s in subs for q in s["answers"]}
    with Store(run2 / "results.sqlite") as st:
        for c, m, q in keys:
            rubric = "phyground-general" if q in ("semantic_alignment", "physical_temporal_validity",
                                                  "object_persistence") else "phyground-law"
            st.put_judgement(VideoKey("phyground", c, m, 0), rubric, q, round(t[(m, c)]), "scored", judge="exact@x")
            st.put_judgement(VideoKey("phyground", c, m, 0), rubric, q, round(t[(m, c)]) + 0.5, "scored", judge="high@x")
    r = build_report(db, n_splits=5)
    ex, hi = r["judges"]["exact@x"], r["judges"]["high@x"]
    assert ex["per_item"]["pearson"] == pytest.approx(1.0) and ex["relative_bias"]["aggregate"] == pytest.approx(0.0)
    assert ex["rank_accuracy"]["A_rank"] == 1.0 and ex["per_model"]["overall"]["spearman"] == pytest.approx(1.0)
    for d, v in hi["relative_bias"]["per_dimension"].items():
        assert v["signed"] == pytest.approx(0.5 / v["human_mean"])
    assert hi["per_item"]["pearson"] == pytest.approx(1.0)
    assert hi["pairwise_accuracy"]["reason"].startswith("the study asked no pairwise")
    db.close()
