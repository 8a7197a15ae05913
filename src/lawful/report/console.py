"""What `lawful evaluate` prints for one video: status, events (with the file's frame numbers for a
windowed clip), measured quantities, and each score with its sides or metrics."""

from __future__ import annotations

from rich.table import Table


def print_evaluation(out, c, video_path, ev, result: dict) -> None:
    """Print ``ev`` (an :class:`~lawful.runner.evaluate.Evaluation` of case ``c`` on ``video_path``) to the rich
    console ``out``; ``result`` is the JSON-ready dict `lawful evaluate --json` writes (events, quantities, missing)."""
    out.print(f"[bold]{c.id}[/bold] ({c.suite}/{c.task}) — {video_path.name}: [bold]{ev.status}[/bold]"
              + (f" — {ev.reason}" if ev.reason else ""))
    if result["events"]:
        start = ((ev.evidence.get("tracks_meta") or {}).get("timing") or {}).get("window_frames") or [0]
        t = Table(title="events" + (f" (window from file frame {start[0]})" if start[0] else ""))
        for col in ("object", "event", "frame", *(["file frame"] if start[0] else []), "t [s]"):
            t.add_column(col)
        for e in result["events"]:
            t.add_row(e["object"], e["name"], f"{e['frame']:.2f}",
                      *([f"{e['frame'] + start[0]:.2f}"] if start[0] else []), f"{e['t']:.3f}")
        out.print(t)
    q = Table(title="measurements")
    q.add_column("quantity")
    q.add_column("value", justify="right")
    for k, v in result["quantities"].items():
        q.add_row(k, "–  (" + result["missing"].get(k, "") + ")" if v is None else f"{v:.4g}")
    out.print(q)
    for col, s in ev.scores.items():
        sides = ", ".join(f"{k} = {v:.4g}" for k, v in s.sides.items() if v is not None)
        val = "–" if s.value is None else f"{s.value:.4f}"
        parts = ", ".join(f"{k} {v:.4g}" for k, v in (s.metrics or {}).items() if v is not None)
        out.print(f"{col}: score {val} [{s.status}] {sides}" + (f" ({parts})" if parts else "") + f" {s.reason}")
