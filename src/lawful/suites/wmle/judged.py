"""A judge's consistency score C replacing the measured one when the leaderboard is recomputed.

Rows are store score rows (``lawful.store.Store.scores``); ``values`` maps a
:class:`~lawful.store.VideoKey` to ``{"consistency": C}`` from rubric ``wmle-consistency``.
P stays as measured; S is recomputed with the gate (Eq. 7). The measured C is kept beside it.
"""

from __future__ import annotations

import copy

from lawful.score.wmle import CONSISTENCY_GATE, composite
from lawful.store import VideoKey

RUBRIC = "wmle-consistency"


def apply_judge_consistency(rows: list[dict], values: dict[VideoKey, dict[str, float | None]]) -> list[dict]:
    out = []
    for r in rows:
        C = values.get(VideoKey(r["suite"], r["case_id"], r["model"], r["rollout"]), {}).get("consistency")
        if C is None or r["status"] != "scored":
            out.append(r)
            continue
        r = copy.deepcopy(r)
        C = min(100.0, max(0.0, float(C)))
        metrics = r["score"].setdefault("metrics", {})
        extra = r["score"].setdefault("extra", {})
        extra["C_measured"], extra["C_source"] = metrics.get("C"), "judge"
        metrics["C"] = C
        S = composite(C, metrics.get("P"))
        extra["S"], extra["gated"] = S, C < CONSISTENCY_GATE
        r["value"] = r["score"]["value"] = S
        out.append(r)
    return out
