"""``lawful show RUN CASE``: an evidence overlay video (tracks, events, region readings on every frame)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def _fail(msg: str) -> None:
    from rich.console import Console

    Console(stderr=True, soft_wrap=True).print(f"[red]error:[/red] {msg}")
    raise typer.Exit(2)


def pick_video(store, case: str, model: str | None, rollout: int | None, suite: str | None) -> dict:
    """The one stored video of ``case`` the options name; ValueError saying what to add when several fit."""
    rows = [v for v in store.videos(suite) if v["case_id"] == case]
    if not rows:
        raise ValueError(f"no stored video of case '{case}'" + (f" in suite '{suite}'" if suite else ""))
    if model is not None:
        rows = [v for v in rows if v["model"] == model]
        if not rows:
            raise ValueError(f"case '{case}' has no video of model '{model}'")
    if rollout is not None:
        rows = [v for v in rows if v["rollout"] == rollout]
        if not rows:
            raise ValueError(f"case '{case}' has no rollout {rollout}" + (f" of model '{model}'" if model else ""))
    if len({v["suite"] for v in rows}) > 1:
        raise ValueError(f"case '{case}' is in several suites ({', '.join(sorted({v['suite'] for v in rows}))}): "
                         "give --suite")
    if len({v["model"] for v in rows}) > 1:
        raise ValueError(f"case '{case}' has videos of several models ({', '.join(sorted({v['model'] for v in rows}))}):"
                         " give --model")
    if len(rows) > 1:
        raise ValueError(f"case '{case}' has {len(rows)} rollouts: give --rollout")
    return rows[0]


def show(
    run_dir: Path = typer.Argument(..., help="Run folder (holds results.sqlite)."),
    case: str = typer.Argument(..., help="Case id, e.g. drop-000."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Model (needed when several scored the case)."),
    rollout: Optional[int] = typer.Option(None, "--rollout", help="Rollout (needed when there are several)."),
    suite: Optional[str] = typer.Option(None, "--suite", "-s", help="Suite (when case ids repeat across suites)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="MP4 to write (default: "
                                       "RUN/report/overlays/<case>__<model>__<rollout>.mp4)."),
) -> None:
    """Write an evidence overlay video of one scored video: its tracks, events and region readings drawn on each
    frame."""
    from lawful.judges.judge import load_cases
    from lawful.report.html import slug
    from lawful.report.overlay import write_overlay_video
    from lawful.store import Store, VideoKey

    db = run_dir / "results.sqlite"
    if not db.exists():
        _fail(f"{run_dir}: no results.sqlite (not a run folder)")
    with Store(db) as store:
        try:
            v = pick_video(store, case, model, rollout, suite)
        except ValueError as e:
            _fail(str(e))
        ev = store.evidence(VideoKey(v["suite"], v["case_id"], v["model"], v["rollout"]))
    if not (ev.get("tracks") or {}).get("objects") and not (ev.get("tracks") or {}).get("regions"):
        _fail(f"{case} ({v['model']}): no tracks stored — the video is {v['status']}"
              + (f": {v['reason']}" if v["reason"] else ""))
    if not v["path"] or not Path(v["path"]).exists():
        _fail(f"{case} ({v['model']}): the video file is gone: {v['path'] or '(none recorded)'}")
    found = {(c.suite, cid): c for cid, (c, _) in load_cases(run_dir / "cases").items()}
    c = found.get((v["suite"], case))
    dest = out or run_dir / "report" / "overlays" / f"{slug(case)}__{slug(v['model'])}__{v['rollout']}.mp4"
    try:
        write_overlay_video(v["path"], ev, dest, c)
    except Exception as e:  # an unreadable file: say so in one line
        _fail(f"{v['path']}: cannot draw the overlay ({type(e).__name__}: {e})")
    typer.echo(str(dest))


def register(app: typer.Typer) -> None:
    app.command("show")(show)
