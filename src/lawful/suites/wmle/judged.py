"""A judge's consistency score C replacing the measured one when the leaderboard is recomputed.

Rows are store score rows (``lawful.store.Store.scores``); ``values`` maps a
:class:`~lawful.store.VideoKey` to ``{"consistency": C}`` from rubric ``wmle-consistency``
(None: the judge was asked and gave no usable answer). P stays as measured; S is recomputed
with the gate (Eq. 7: S = 0.15·C + 0.85·P when C ≥ 80, else 0.15·C). The judge's C applies to
every judged video, also one whose object was lost (``unmeasurable``: P = 0, so S = 0.15·C) or
whose physics could not be scored (``invalid`` with no P: S = 0.15·C). The measured C is kept
beside it, and ``extra.C_source`` says where each row's C came from: ``judge``, ``measured``
(no judge answer) or ``measured (judge unusable)``.
"""

from __future__ import annotations

import copy
from collections import Counter

from lawful.score.wmle import CONSISTENCY_GATE, composite
from lawful.store import VideoKey

RUBRIC = "wmle-consistency"
UNUSABLE = "measured (judge unusable)"


def apply_judge_consistency(rows: list[dict], values: dict[VideoKey, dict[str, float | None]]) -> list[dict]:
    out = []
    for r in rows:
        key = VideoKey(r["suite"], r["case_id"], r["model"], r["rollout"])
        asked = key in values and "consistency" in values[key]
        C = values.get(key, {}).get("consistency")
        r = copy.deepcopy(r)
        score = r["score"] = r.get("score") or {}
        metrics = score["metrics"] = score.get("metrics") or {}
        extra = score["extra"] = score.get("extra") or {}
        if C is None:
            extra["C_source"] = UNUSABLE if asked else extra.get("C_source", "measured")
            out.append(r)
            continue
        C = min(100.0, max(0.0, float(C)))
        extra["C_measured"], extra["C_source"] = metrics.get("C"), "judge"
        metrics["C"] = C
        P = metrics.get("P")
        if r["status"] == "unmeasurable":  # the object was lost: an operational zero for physics
            P = metrics["P"] = 0.0 if P is None else P
        S = composite(C, P)
        extra["S"], extra["gated"] = S, C < CONSISTENCY_GATE
        if r["status"] == "scored":
            r["value"] = score["value"] = S
        out.append(r)
    return out


def provenance(rows: list[dict]) -> dict[str, dict[str, int]]:
    """model → how many videos' C came from the judge / from measurement / from measurement because
    the judge's answer was unusable (rows after :func:`apply_judge_consistency`)."""
    seen: dict[str, Counter] = {}
    for r in rows:
        if r.get("suite", "wmle") != "wmle":
            continue
        src = ((r.get("score") or {}).get("extra") or {}).get("C_source") or "measured"
        seen.setdefault(r["model"], Counter())[src] += 1
    return {m: {"judge": c["judge"], "measured": sum(n for s, n in c.items() if s not in ("judge", UNUSABLE)),
                "judge_unusable": c[UNUSABLE]} for m, c in sorted(seen.items())}


def wmle_provenance(store) -> dict:
    """model → C source counts for the WMLE rows of ``store`` with the judge's values applied."""
    from lawful.judges.judge import stored_values

    rows = store.scores("wmle")
    return provenance(apply_judge_consistency(rows, stored_values(store, RUBRIC, "wmle")))


def after_judging(store, rubrics: set[str], publish, show) -> dict | None:
    """After ``lawful judge`` with :data:`RUBRIC`: recompute the WMLE leaderboard with the judge's C, show it,
    and return where each video's C came from (:func:`wmle_provenance`); other WMLE rubrics change nothing."""
    if RUBRIC not in rubrics:
        return None
    from lawful.suites.wmle.report import table

    board = publish(["wmle"], {})
    if board.get("wmle", {}).get("models"):
        show(table(board["wmle"]))
    return wmle_provenance(store)
