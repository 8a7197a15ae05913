"""Run details for the report, from what the run folder and its store hold: version, suites, cases, models,
rollouts, judges, when results were stored and over how long."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

from lawful.store import Store

_JD_UNIX = 2440587.5  # julian day of 1970-01-01


def from_julian(jd: float | None) -> datetime | None:
    return None if jd is None else datetime.fromtimestamp((jd - _JD_UNIX) * 86400.0, tz=timezone.utc)


def _span(db: Path, sql: str) -> tuple[float | None, float | None]:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
            return tuple(c.execute(sql).fetchone())
    except sqlite3.Error:
        return None, None


def _case_seeds(folder: Path) -> list[int]:
    seeds = []
    for p in sorted(folder.glob("*.json"))[:500]:
        try:
            s = json.loads(p.read_text()).get("seed")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(s, int):
            seeds.append(s)
    return seeds


def run_details(store: Store, out: Path, board: dict) -> list[tuple[str, str]]:
    """``(label, value)`` rows describing the run."""
    from lawful import __version__

    videos = store.videos()
    judgements = store.judgements(judge="*")
    suites = sorted({v["suite"] for v in videos} | {j["suite"] for j in judgements}
                    | {k for k, s in board.items() if isinstance(s, dict) and "models" in s})
    models = sorted({v["model"] for v in videos} | {j["model"] for j in judgements})
    rows = [("lawful", __version__), ("run folder", str(Path(out).resolve())), ("suites", ", ".join(suites) or "–")]
    cases = []
    for s in suites:
        ids = {v["case_id"] for v in videos if v["suite"] == s} | {j["case_id"] for j in judgements if j["suite"] == s}
        folder = Path(out) / "cases" / s
        files = len(list(folder.glob("*.json"))) if folder.is_dir() else 0
        seeds = _case_seeds(folder) if folder.is_dir() else []
        seed_txt = f"; case seeds {min(seeds)}…{max(seeds)}" if len(seeds) > 1 else (
            f"; case seed {seeds[0]}" if seeds else "")
        cases.append(f"{s}: {len(ids)} scored" + (f" of {files} case files" if files else "") + seed_txt)
    rows.append(("cases", "; ".join(cases) or "–"))
    rows.append(("models", ", ".join(models) or "–"))
    rollouts = sorted({v["rollout"] for v in videos})
    if rollouts:
        rows.append(("rollouts per case", f"{len(rollouts)} (indices {rollouts[0]}–{rollouts[-1]})"))
    rows.append(("videos", str(len(videos))))
    judges = store.judges()
    runs = store.judge_runs()
    if judges:
        calls = {}
        for r in runs:
            for k, n in r["counts"].items():
                calls[k] = calls.get(k, 0) + (n if isinstance(n, int) else 0)
        rows.append(("judges", ", ".join(judges) + (f" (calls: {', '.join(f'{k} {n}' for k, n in calls.items())})"
                                                    if calls else "")))
    else:
        rows.append(("judges", "none (measured scores only)"))
    db = Path(store.path)
    t0, t1 = _span(db, "SELECT MIN(created), MAX(created) FROM videos")
    j0, j1 = _span(db, "SELECT MIN(created), MAX(created) FROM judgements")
    lo = min((x for x in (t0, j0) if x is not None), default=None)
    hi = max((x for x in (t1, j1) if x is not None), default=None)
    if lo is not None:
        a, b = from_julian(lo), from_julian(hi)
        rows.append(("results stored", f"{a:%Y-%m-%d %H:%M:%S} – {b:%H:%M:%S} UTC "
                                       f"({_dur(b - a)} from the first stored result to the last)"))
    rows.append(("report written", f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} UTC"))
    return rows


def _dur(d: timedelta) -> str:
    s = d.total_seconds()
    return f"{s:.0f} s" if s < 120 else (f"{s / 60:.1f} min" if s < 7200 else f"{s / 3600:.1f} h")
