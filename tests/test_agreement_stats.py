"""Golden numbers for every agreement statistic on small hand-computed tables."""

from __future__ import annotations

import json
import math

import pytest
from scipy import stats

from lawful.judges.agreement import (confirmed_pairwise, cross_check, human_majority, load_table, mean_over,
                                     model_means, pairwise_human_human, parse_votes, pearson, principia_agreement,
                                     rank_agreement, ranks, relative_bias, spearman)


def test_pearson_and_spearman_by_hand():
    # dx = dy·perm: Σdxdy = 4, Σdx² = Σdy² = 5 → r = 0.8; same ranks → ρ = 0.8
    assert pearson([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert spearman([10, 20, 30, 40], [1, 3, 2, 4]) == pytest.approx(0.8)
    # ties get average ranks [1, 2.5, 2.5, 4]: ρ = 4.5 / sqrt(5 · 4.5)
    assert list(ranks([1, 2, 2, 3])) == [1, 2.5, 2.5, 4]
    assert spearman([1, 2, 3, 4], [1, 2, 2, 3]) == pytest.approx(4.5 / math.sqrt(22.5))
    assert spearman([1, 2, 3, 4], [1, 2, 2, 3]) == pytest.approx(stats.spearmanr([1, 2, 3, 4], [1, 2, 2, 3])[0])
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3]))


def test_cross_check_table14_layout():
    # judge A and judge B score three models on two subtracks (two cases each)
    def rows(table):
        return [{"model": m, "subtrack": s, "score": v} for m, s, vals in table for v in vals]

    a = rows([("m1", "ded", [0.2, 0.4]), ("m2", "ded", [0.5, 0.5]), ("m3", "ded", [0.9, 0.7]),
              ("m1", "pt", [1.0, 1.0]), ("m2", "pt", [0.2, 0.4]), ("m3", "pt", [0.6, 0.6])])
    b = rows([("m1", "ded", [0.1, 0.3]), ("m2", "ded", [0.6, 0.6]), ("m3", "ded", [0.8, 0.8]),
              ("m1", "pt", [0.5, 0.5]), ("m2", "pt", [0.4, 0.4]), ("m3", "pt", [0.9, 0.9])])
    out = {r["comparison"]: r for r in cross_check(a, b)}
    # overall per-model means: A = (0.65, 0.4, 0.7), B = (0.35, 0.5, 0.85)
    assert model_means(a)[None] == pytest.approx({"m1": 0.65, "m2": 0.4, "m3": 0.7})
    assert out["overall"]["pearson"] == pytest.approx(pearson([0.65, 0.4, 0.7], [0.35, 0.5, 0.85]))
    assert out["overall"]["spearman"] == pytest.approx(0.5)  # ranks (2,1,3) vs (1,2,3): 1 − 6·2/24
    # deduction: A = (0.3, 0.5, 0.8), B = (0.2, 0.6, 0.8): same order → ρ = 1
    assert out["ded"]["spearman"] == pytest.approx(1.0)
    # dx = (−0.2333, −0.0333, 0.2667), dy = (−0.3333, 0.0667, 0.2667)
    assert out["ded"]["pearson"] == pytest.approx(0.1466667 / math.sqrt(0.1266667 * 0.1866667), rel=1e-5)
    assert out["pt"]["n_models"] == 3 and list(out) == ["overall", "ded", "pt"]


def test_relative_bias_signed_and_aggregate():
    judge = [{"dimension": "solid_body", "score": s} for s in (3, 3, 3)] + \
            [{"dimension": "fluid", "score": s} for s in (2, 3.4)]
    human = [{"dimension": "solid_body", "score": s} for s in (2, 3)] + \
            [{"dimension": "fluid", "score": s} for s in (3, 3)]
    out = relative_bias(judge, human)
    assert out["per_dimension"]["solid_body"]["signed"] == pytest.approx(0.2)    # (3 − 2.5) / 2.5
    assert out["per_dimension"]["fluid"]["signed"] == pytest.approx(-0.1)        # (2.7 − 3) / 3
    assert out["aggregate"] == pytest.approx(0.15)


def test_relative_bias_paired_items():
    judge = [{"dimension": "optical", "video": "v1", "score": 4}, {"dimension": "optical", "video": "v2", "score": 2}]
    human = [{"dimension": "optical", "video": "v1", "score": 5}, {"dimension": "optical", "video": "v3", "score": 1}]
    out = relative_bias(judge, human, item="video")  # only v1 is shared: (4 − 5) / 5
    assert out["per_dimension"]["optical"]["signed"] == pytest.approx(-0.2)


def test_principia_a_phi():
    rows = (
        [{"phenomenon": "gravity", "verdict": v, "truth": t} for v, t in
         [("PASS", "PASS"), ("FAIL", "PASS"), ("FAIL", "FAIL"), ("FAIL", "FAIL")]]
        + [{"phenomenon": "pendulum", "verdict": v, "truth": t} for v, t in
           [("PASS", "FAIL"), (None, "PASS"), ("PASS", "PASS"), ("junk", "PASS"), ("PASS", "PASS")]]
    )
    out = principia_agreement(rows)
    assert out["per_phenomenon"] == pytest.approx({"gravity": 0.75, "pendulum": 0.4})
    assert out["n_unanswered"]["pendulum"] == 2
    assert out["overall"] == pytest.approx((0.75 + 0.4) / 2)


def test_principia_table4_overall_is_mean_of_phenomena():
    gemini_31_pro = [0.439, 0.489, 0.498, 0.517, 0.517, 0.536, 0.843, 0.519]  # seed 002 Table 4
    assert round(mean_over(gemini_31_pro), 3) == 0.545
    qwen_32b = [0.460, 0.553, 0.467, 0.427, 0.517, 0.411, 0.587, 0.579]
    assert round(mean_over(qwen_32b), 3) == 0.500


def test_rank_agreement_eq10_with_ties():
    rows = [
        # T1: (1,2) both '>' agree; (1,3) agree; (2,3) both tie → agree
        {"task": "T1", "P": 0.9, "H": 5}, {"task": "T1", "P": 0.5, "H": 3}, {"task": "T1", "P": 0.5, "H": 3},
        # T2: (1,2) P says '<', H says '>' → disagree; video 3 insufficient → its 2 pairs excluded
        {"task": "T2", "P": 0.2, "H": 4}, {"task": "T2", "P": 0.8, "H": 2}, {"task": "T2", "P": 0.8, "H": None},
        # T3: P ties but H does not → disagree
        {"task": "T3", "P": 0.4, "H": 2}, {"task": "T3", "P": 0.4, "H": 5},
        # T4: H ties but P does not → disagree
        {"task": "T4", "P": 0.1, "H": 3}, {"task": "T4", "P": 0.3, "H": 3},
    ]
    out = rank_agreement(rows)
    assert (out["agree"], out["pairs"], out["excluded_pairs"]) == (3, 6, 2)
    assert out["A_rank"] == pytest.approx(0.5)


def test_confirmed_pairwise_eq11_no_majority_rule():
    rows = [
        {"votes": "A;A;B", "P_a": 0.9, "P_b": 0.1},                       # majority A, auto A → agree
        {"votes": "A;B;insufficient", "P_a": 0.9, "P_b": 0.1},            # 1–1 of 2 assessable → no majority
        {"votes": "tie;tie;A", "P_a": 0.5, "P_b": 0.5},                   # majority tie, auto tie → agree
        {"votes": "insufficient;insufficient;B", "P_a": 0.7, "P_b": 0.2},  # B (1 of 1), auto A → disagree
        {"votes": "B;insufficient;B", "P_a": 0.1, "P_b": 0.6},            # B, auto B → agree
        {"votes": "A;B;tie", "P_a": 0.3, "P_b": 0.3},                     # no majority (even though auto ties)
    ]
    out = confirmed_pairwise(rows)
    assert (out["agree"], out["pairs"], out["no_majority"]) == (3, 6, 2)
    assert out["A_pair_conf"] == pytest.approx(0.5)
    hh = pairwise_human_human(rows)
    # pairings 1-2: rows 1, 3 → 2/6; 1-3: row 5 → 1/6; 2-3: none (abstentions never match)
    assert hh["per_pairing"] == pytest.approx({"1-2": 2 / 6, "1-3": 1 / 6, "2-3": 0.0})
    assert hh["mean"] == pytest.approx(1 / 6)


def test_majority_and_vote_parsing():
    assert parse_votes("A; b ;Tie;insufficient;") == ["A", "B", "tie", None, None]
    assert human_majority(["A", "A", None]) == "A"
    assert human_majority(["A", "B"]) is None
    assert human_majority([None, None]) is None


def test_tables_from_csv_and_json(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("model,subtrack,score\nm1,ded,0.5\nm2,ded,\n")
    assert load_table(p) == [{"model": "m1", "subtrack": "ded", "score": 0.5},
                             {"model": "m2", "subtrack": "ded", "score": None}]
    q = tmp_path / "t.json"
    q.write_text(json.dumps({"rows": [{"model": "m1", "score": 1}]}))
    assert load_table(q) == [{"model": "m1", "score": 1}]


def test_principia_detection_from_a_run_store(tmp_path):
    from lawful.judges.agreement import principia_detection_rows
    from lawful.result import Score
    from lawful.store import Store, VideoKey

    with Store(tmp_path / "results.sqlite") as st:
        for case, model, verdict, s in [("d0", "reference", 1.0, 0.97), ("d1", "reference", 0.0, 0.85),
                                        ("d0", "counterfactual", 0.0, 0.40), ("d1", "counterfactual", None, None),
                                        ("d0", "static", 1.0, 0.0)]:
            k = VideoKey("principia", case, model, 0)
            st.put_judgement(k, "principia-detect", "gravity", verdict, "scored" if verdict is not None else "invalid")
            score = Score(status="scored", value=s) if s is not None else Score.unmeasurable("ball lost")
            st.put(k, "drop", score.status, {"gravity": score})
        judge, meas = principia_detection_rows(st, pass_threshold=0.9)
    # judge: ref d0 PASS ✓, ref d1 FAIL ✗, cf d0 FAIL ✓, cf d1 no answer ✗ → 2/4 (static has no truth)
    assert principia_agreement(judge)["per_phenomenon"] == {"gravity": 0.5}
    # measurement at S ≥ 0.9: ref d0 ✓, ref d1 (0.85) ✗, cf d0 ✓, cf d1 unmeasurable ✗ → 2/4
    assert principia_agreement(meas)["per_phenomenon"] == {"gravity": 0.5}
    _, meas80 = principia_detection_rows(Store(tmp_path / "results.sqlite"), pass_threshold=0.8)
    assert principia_agreement(meas80)["per_phenomenon"] == {"gravity": 0.75}


def test_cli_judge_agreement(tmp_path):
    from typer.testing import CliRunner

    from lawful.cli import app

    p = tmp_path / "rank.csv"
    p.write_text("task,P,H\nT1,0.9,5\nT1,0.5,3\nT1,0.5,3\nT2,0.2,4\nT2,0.8,2\n")
    r = CliRunner().invoke(app, ["judge-agreement", "rank", str(p), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["A_rank"] == pytest.approx(3 / 4)
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("model,score\nm1,1\nm2,2\nm3,3\n")
    b.write_text("model,score\nm1,2\nm2,4\nm3,7\n")
    r = CliRunner().invoke(app, ["judge-agreement", "correlation", str(a), str(b), "--subtrack-col", "", "--json"])
    assert json.loads(r.output)[0]["spearman"] == pytest.approx(1.0)
    r = CliRunner().invoke(app, ["judge-agreement", "corelation", str(a)])
    assert r.exit_code == 2 and "did you mean 'correlation'" in r.output
