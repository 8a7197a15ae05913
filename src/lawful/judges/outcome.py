"""What a judged command tells the user at the end: call counts, where each score came from, exit code.

The totals count every judge client the command made (:func:`lawful.judges.client.usage_since`),
so suites that judge their own rows (Apple-π's ``Suite.judge``) are counted too; the per-rubric lines come from
the store's ``judge_runs`` rows (every rubric run through :func:`lawful.judges.judge.judge_run` leaves one). Exit codes: 0 fine; :data:`EXIT_JUDGE` when judge calls were made and not
one gave a usable answer, or with ``strict`` when any call failed or was unusable.
"""

from __future__ import annotations

from collections import Counter

from lawful.judges.judge import CALL_COUNTS, calls_line

EXIT_JUDGE = 3


def totals(runs: list[dict]) -> dict[str, int]:
    """Summed call counts of ``judge_runs`` rows."""
    c: Counter = Counter()
    for r in runs:
        c.update({k: int(r["counts"].get(k, 0)) for k in CALL_COUNTS})
    return {k: c[k] for k in CALL_COUNTS}


def exit_code(counts: dict[str, int], strict: bool = False) -> tuple[int, str]:
    """(code, message): non-zero when every call failed, or with ``strict`` when any did."""
    n, ok = counts.get("calls", 0), counts.get("ok", 0)
    bad = counts.get("failed", 0) + counts.get("unusable", 0)
    if n and not ok:
        return EXIT_JUDGE, (f"judge: none of {n} calls gave a usable answer ({counts.get('failed', 0)} failed, "
                            f"{counts.get('unusable', 0)} unusable); judge-dependent scores fell back to measurement "
                            f"or are N/A")
    if strict and bad:
        return EXIT_JUDGE, f"judge: {bad} of {n} calls gave no usable answer (--strict)"
    return 0, ""


def summary_section(runs: list[dict], provenance: dict | None = None, calls: dict | None = None) -> dict:
    """The ``judge`` section of leaderboard.json: per-rubric call counts, totals (``calls``, default
    the sum of ``runs``), C provenance."""
    per: dict[str, dict] = {}
    for r in runs:
        key = f"{r['rubric']} by {r['judge']}"
        agg = per.setdefault(key, {k: 0 for k in CALL_COUNTS})
        for k in CALL_COUNTS:
            agg[k] += int(r["counts"].get(k, 0))
    out = {"calls": calls if calls is not None else totals(runs), "by_rubric": per}
    if provenance is not None:
        out["C_source"] = provenance
    return out


def lines(section: dict) -> list[str]:
    """Human lines for a ``judge`` section: totals, then which C came from the judge."""
    out = [f"judge {k}: {calls_line(v)}" for k, v in section.get("by_rubric", {}).items()]
    out.append(f"judge total: {calls_line(section.get('calls', {}))}")
    for model, p in (section.get("C_source") or {}).items():
        out.append(f"wmle C of {model}: {p['judge']} from the judge, {p['measured']} measured"
                   + (f", {p['judge_unusable']} measured because the judge gave no usable answer"
                      if p["judge_unusable"] else ""))
    return out


def julian_now() -> float:
    """Now as a julian day, the store's clock (``julianday('now')``)."""
    import time

    return time.time() / 86400.0 + 2440587.5


def make_config(url: str, model: str, api_key_env: str | None, timeout_s: float, retries: int):
    """A JudgeConfig from the run/evaluate options: ``timeout_s`` per attempt, ``retries`` after the
    first; the per-call deadline covers every attempt plus the backoff waits between them."""
    from lawful.judges.client import JudgeConfig

    backoff = sum(min(30.0, 2.0 ** i) for i in range(retries))
    return JudgeConfig(url=url, model=model, api_key_env=api_key_env, timeout_s=timeout_s, max_retries=retries,
                       deadline_s=timeout_s * (retries + 1) + backoff)


def finish(run_dir, since: float, strict: bool, echo, provenance=None) -> tuple[int, str]:
    """After a judged run/evaluate: store the ``judge`` section in leaderboard.json, print its lines
    with ``echo``, return (exit code, message). ``provenance(store)``: where the judged suites' scores
    came from (model → counts; WMLE's :func:`lawful.suites.wmle.judged.wmle_provenance`), asked only
    when a WMLE rubric was judged in this run."""
    import json
    from pathlib import Path

    from lawful.judges.client import usage_since
    from lawful.judges.judge import STORE_FILE
    from lawful.store import Store

    run_dir = Path(run_dir)
    with Store(run_dir / STORE_FILE) as store:
        runs = store.judge_runs(since=since)
        wmle = provenance is not None and any(r["suite"] == "wmle" for r in runs)
        prov = provenance(store) if wmle else None
    used = usage_since(since)
    section = summary_section(runs, prov, {k: used[k] for k in CALL_COUNTS})
    board_path = run_dir / "leaderboard.json"
    if board_path.exists():
        board = json.loads(board_path.read_text())
        board["judge"] = section
        board_path.write_text(json.dumps(board, indent=2))
    for line in lines(section):
        echo(line)
    return exit_code(section["calls"], strict)
