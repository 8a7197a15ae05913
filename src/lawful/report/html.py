"""A short self-contained HTML report: per suite a leaderboard table and a per-task bar chart."""

from __future__ import annotations

import base64
import html
import io
import math
from pathlib import Path

import numpy as np

from lawful.report.leaderboard import fmt


def _bar_chart(section: dict, title: str) -> str:
    """Grouped bars (task × model) as a base64 PNG <img>."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = list(section.get("models", {}))
    tasks = task_names(section)
    if not models or not tasks:
        return ""
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(tasks) + 2), 3.6), dpi=100)
    width = 0.8 / len(models)
    x = np.arange(len(tasks))
    for i, m in enumerate(models):
        vals = [section["models"][m]["tasks"].get(t) for t in tasks]
        vals = [v if isinstance(v, (int, float)) and math.isfinite(v) else 0 for v in vals]
        ax.bar(x + (i - (len(models) - 1) / 2) * width, vals, width, label=m)
    ax.set_xticks(x, tasks, rotation=30, ha="right")
    lo, hi = section.get("scale", [0, 1])
    ax.set_ylim(lo, hi)
    ax.set_title(title)
    ax.legend(fontsize=8, ncols=min(len(models), 4))
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return f'<img alt="{html.escape(title)}" src="data:image/png;base64,{base64.b64encode(buf.getvalue()).decode()}">'


def task_names(section: dict) -> list[str]:
    """Task columns of a leaderboard section, in first-seen order over its models."""
    names: list[str] = []
    for m in section.get("models", {}).values():
        names += [t for t in m.get("tasks", {}) if t not in names]
    return names


def _table(section: dict) -> str:
    models = section.get("models", {})
    tasks = task_names(section)
    head = "".join(f"<th>{html.escape(t)}</th>" for t in tasks)
    rows = []
    for name, m in models.items():
        cells = "".join(f"<td>{fmt(m.get('tasks', {}).get(t))}</td>" for t in tasks)
        counts = f"{m.get('scored', 0)}/{m.get('unmeasurable', 0)}/{m.get('invalid', 0)}"
        rows.append(f"<tr><th>{html.escape(name)}</th>{cells}<td><b>{fmt(m.get('overall'))}</b></td>"
                    f"<td>{counts}</td></tr>")
    return (f"<table><tr><th>model</th>{head}<th>overall</th><th>scored/unmeasurable/invalid</th></tr>"
            + "".join(rows) + "</table>")


def write_html(board: dict, path: Path) -> Path:
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>lawful report</title><style>",
             "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}",
             "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th:first-child{text-align:left}",
             "</style></head><body><h1>lawful report</h1>"]
    for suite, section in board.items():
        if not isinstance(section, dict) or "models" not in section:
            continue
        lo, hi = section.get("scale", [0, 1])
        parts.append(f"<h2>{html.escape(suite)}</h2><p>scale {lo}–{hi}; higher is better.</p>")
        parts.append(_table(section))
        parts.append(_bar_chart(section, f"{suite}: score per task"))
    parts.append("</body></html>")
    path.write_text("\n".join(parts))
    return path
