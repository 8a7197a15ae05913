"""The report's per-suite case index (``report/<suite>/index.html``) and the per-video pages behind it.

Items come from the store: one per stored video (measured suites, Apple-π), or per judged video for a suite
that has only judge answers (PhyGround). The index has one table per leaderboard column (anchor ``c-<column>``,
what a leaderboard cell links to): a row per case and rollout, a cell per model with the score, coloured by
status, linking to the video's page.
"""

from __future__ import annotations

import os
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lawful.report.case_page import Item, write_case_page
from lawful.report.html import esc, fmt, page, rel, slug, table
from lawful.store import Store, VideoKey


def _cases(out: Path) -> dict[tuple[str, str], tuple[object, Path]]:
    """(suite, case id) → (Case, path) for the case files of the run folder and the folders its ``*.source``
    files point to. Read without checking them against their tasks (the scoring did; that check builds every
    suite's tasks per file, seconds for a run)."""
    from lawful.case import Case
    from lawful.judges.judge import CASES_POINTER

    root = Path(out) / "cases"
    if not root.is_dir():
        return {}
    folders = [root] + [Path(f.read_text().strip()) for f in sorted(root.glob(f"*{CASES_POINTER}"))]
    found: dict = {}
    for d in folders:
        for p in sorted(d.rglob("*.json")) if d.is_dir() else []:
            try:
                c = Case.model_validate_json(p.read_text())
            except (OSError, ValueError):
                continue
            c._dir = p.parent
            found.setdefault((c.suite, c.id), (c, p))
    return found


def _phyground_video(out: Path, model: str, case_id: str, rollout: int) -> str:
    from lawful.store import model_dir_name

    p = Path(out) / "videos" / model_dir_name(model) / f"{case_id}__{rollout}.mp4"
    return str(p) if p.exists() else ""


def collect(store: Store, out: Path, suite: str, cases: dict) -> list[Item]:
    """The suite's items with their scores, evidence and judge answers."""
    root = Path(out) / "report" / slug(suite)
    items: dict[tuple, Item] = {}
    for v in store.videos(suite):
        k = (v["case_id"], v["model"], v["rollout"])
        items[k] = Item(suite, v["case_id"], v["model"], int(v["rollout"]), v["status"], v["reason"] or "",
                        v["path"] or "", v["task"] or "")
    for r in store.scores(suite):
        it = items.get((r["case_id"], r["model"], r["rollout"]))
        if it is not None:
            it.scores[r["col"]] = r
    for j in store.judgements(suite=suite, judge="*"):
        k = (j["case_id"], j["model"], j["rollout"])
        if k not in items:  # judged only: the video is where the suite's flow wrote it
            items[k] = Item(suite, j["case_id"], j["model"], int(j["rollout"]), "judged", "",
                            _phyground_video(out, j["model"], j["case_id"], j["rollout"]))
        items[k].judgements.append(j)
    for (cid, model, k), it in items.items():
        case = cases.get((suite, cid))
        if case is not None:
            it.case, it.case_path = case
            it.task = it.task or it.case.task
        if it.status != "judged":
            key = VideoKey(suite, cid, model, k)
            it.evidence = store.evidence(key)
            it.fingerprint = store.stored_fingerprint(key)[1]
        else:
            bad = [j for j in it.judgements if j["status"] != "scored"]
            it.status = "scored" if len(bad) < len(it.judgements) else "invalid"
            it.reason = "; ".join(sorted({f"{j['criterion']}: {j['status']}" for j in bad}))[:500]
        it.page = root / slug(model) / f"{slug(cid)}__{k}.html"
    return sorted(items.values(), key=lambda i: (i.case_id, i.rollout, i.model))


def _columns(items: list[Item], section: dict | None) -> list[str]:
    """Columns the index shows: those of the leaderboard when it names them, else every score or criterion."""
    shown: list[str] = []
    for m in (section or {}).get("models", {}).values():
        for key in ("tasks", "subtracks", "dimensions", "laws"):
            shown += [c for c in m.get(key, {}) if c not in shown]
    present = {c for it in items for c in it.scores} | {j["criterion"] for it in items for j in it.judgements}
    cols = [c for c in shown if c in present]
    return cols or sorted(present)


def _value(it: Item, col: str) -> tuple[float | None, str]:
    r = it.scores.get(col)
    if r is not None:
        return r.get("value"), r.get("status", "")
    js = [j for j in it.judgements if j["criterion"] == col]
    vals = [j["value"] for j in js if j["status"] == "scored" and j["value"] is not None]
    if js:
        return (sum(vals) / len(vals) if vals else None), ("scored" if vals else js[0]["status"])
    return None, ""


def write_index(suite: str, items: list[Item], section: dict | None, out: Path) -> Path:
    root = Path(out) / "report" / slug(suite)
    root.mkdir(parents=True, exist_ok=True)
    path = root / "index.html"
    models = list(dict.fromkeys(it.model for it in sorted(items, key=lambda i: i.model)))
    by = {(it.case_id, it.rollout, it.model): it for it in items}
    rows_keys = list(dict.fromkeys((it.case_id, it.rollout) for it in items))
    counts = defaultdict(int)
    for it in items:
        counts[it.status] += 1
    body = [f"<nav><a href='{esc(rel(Path(out) / 'report.html', root))}'>run report</a></nav>",
            f"<h1>{esc(suite)}: cases</h1>",
            f"<p>{len(items)} videos: " + ", ".join(f"{n} {esc(s)}" for s, n in sorted(counts.items())) + "</p>"]
    cols = _columns(items, section)
    body.append("<p>" + " ".join(f"<a href='#c-{esc(slug(c))}'>{esc(c)}</a>" for c in cols) + "</p>")
    for col in cols:
        rows = []
        for cid, k in rows_keys:
            if not any(col in by[(cid, k, m)].scores or any(j["criterion"] == col for j in by[(cid, k, m)].judgements)
                       for m in models if (cid, k, m) in by):
                continue
            cells = []
            for m in models:
                it = by.get((cid, k, m))
                if it is None:
                    cells.append("–")
                    continue
                v, st = _value(it, col)
                why = it.scores.get(col, {}).get("reason") or it.reason
                judged = [j["value"] for j in it.judgements if j["criterion"] == col and j["status"] == "scored"]
                judge = (f" <small class='muted' title='the judge'>J {fmt(sum(judged) / len(judged))}</small>"
                         if judged and col in it.scores else "")
                cells.append(f"<td class='{esc(st)}' title='{esc(st + (': ' + why if why else ''))}'>"
                             f"<a href='{esc(rel(it.page, root))}'>{fmt(v)}</a>" + judge
                             + ("" if st == "scored" else f" <small>{esc(st)}</small>") + "</td>")
            rows.append([f"<th>{esc(cid)}" + (f" #{k}" if k else "") + "</th>", *cells])
        name = next((m.get("names", {}).get(col) for m in (section or {}).get("models", {}).values()
                     if m.get("names", {}).get(col)), "")
        title = esc(col) + (f" — {esc(str(name).replace('_', ' '))}" if name else "")
        body.append(f"<h2 id='c-{esc(slug(col))}'>{title}</h2>" + table(["case", *map(esc, models)], rows))
    path.write_text(page(f"{suite} cases", "\n".join(body)))
    return path


def write_suite_pages(store: Store, out: Path, suite: str, section: dict | None, embed: bool = False,
                      cases: dict | None = None, progress=None) -> list[Item]:
    """The suite's index and one page per video; returns the items."""
    cases = _cases(out) if cases is None else cases
    items = collect(store, out, suite, cases)
    if not items:
        return items
    index = write_index(suite, items, section, out)

    def one(it: Item) -> None:
        write_case_page(it, rel(index, it.page.parent), rel(Path(out) / "report.html", it.page.parent), embed)
        if progress is not None:
            progress()

    # decoding and JPEG encoding release the GIL: threads use the cores without a process pool's start-up
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        list(pool.map(one, items))
    return items
