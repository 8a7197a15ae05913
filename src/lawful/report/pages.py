"""The run page (``report.html``) and, under ``report/``, each suite's case index and per-video pages.

``report.html`` holds the run details and per suite its view (:mod:`lawful.report.sections`) with the judge's
values beside the measurement where both exist; every leaderboard cell links to the cases behind it.
Static files only: opens from disk, charts inline, key frames as small JPEGs, videos referenced in place
(copied beside the pages only with ``embed``).
"""

from __future__ import annotations

import time
from pathlib import Path

from lawful.report import sections
from lawful.report.html import esc, page, slug
from lawful.store import Store


def write_run_page(board: dict, store: Store, out: Path, indexed: set[str], elapsed: float | None = None) -> Path:
    """``out/report.html`` from the leaderboard ``board``; ``indexed``: suites whose case index exists."""
    from lawful.report.runinfo import run_details

    suites = [s for s, sec in board.items() if isinstance(sec, dict) and "models" in sec]
    body = ["<h1>lawful report</h1>",
            "<nav>" + "".join(f"<a href='#s-{esc(slug(s))}'>{esc(s)}</a>" for s in suites) + "</nav>"]
    details = run_details(store, out, board)
    body.append("<details open><summary><b>run details</b></summary>"
                + "<div class='scroll'><table>" + "".join(f"<tr><th>{esc(k)}</th><td class='l'>{esc(v)}</td></tr>"
                                                           for k, v in details) + "</table></div>"
                + "</details>")
    for s in suites:
        sec = board[s]
        lo, hi = sec.get("scale", [0, 1])
        link = (f" · <a href='{esc(sections.cases_link(s))}'>all cases</a>" if s in indexed else "")
        body.append(f"<h2 id='s-{esc(slug(s))}'>{esc(s)}</h2><p class='muted'>scale {lo}–{hi}; higher is better"
                    f"{link}</p>")
        try:
            body.append(sections.view(s, sec))
        except Exception as e:  # one odd section must not cost the whole report
            body.append(f"<p class='reason invalid'>this section could not be drawn: {esc(type(e).__name__)}: "
                        f"{esc(e)}</p>")
        jv = sections.judge_vs_measurement(sec, store.judgements(suite=s)) if s != "phyground" else ""
        body.append(jv)
    if elapsed is not None:
        body.append(f"<p class='muted'>case pages written in {elapsed:.1f} s</p>")
    path = Path(out) / "report.html"
    path.write_text(page("lawful report", "\n".join(body)))
    return path


def write_report(board: dict, store: Store, out: Path, suites: list[str], embed: bool = False) -> Path:
    """Case pages for ``suites`` (those recomputed now) and the run page for every suite in ``board``."""
    from lawful.progress import console, progress_bar
    from lawful.report.case_index import _cases, write_suite_pages

    out = Path(out)
    t0 = time.perf_counter()
    cases = _cases(out)
    total = sum(len(store.videos(s)) for s in suites)
    with progress_bar(console.is_terminal and total > 30) as bar:
        tid = bar.add_task("report", total=total)
        for s in suites:
            write_suite_pages(store, out, s, board.get(s), embed, cases, lambda: bar.advance(tid))
    indexed = {s for s in board if (out / "report" / slug(s) / "index.html").exists()}
    return write_run_page(board, store, out, indexed, time.perf_counter() - t0)
