"""The run page's charts (matplotlib, Agg): small multiples, one panel per model, bars over laws / families /
subtracks with the spread over cases as error bars. Returned as inline PNG ``<img>`` tags (a few kB each)."""

from __future__ import annotations

import base64
import html
import io
import math

import numpy as np

MAX_WIDTH_IN = 12.8  # at 100 dpi: 1280 px, inside a 1400 px window with the page's margins
DPI = 100


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _finite(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def _img(fig, alt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    _plt().close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _grid(n: int, labels: int) -> tuple[int, int, float, float]:
    cols = min(n, 4 if labels <= 14 else 3)
    rows = math.ceil(n / cols)
    w = MAX_WIDTH_IN
    h_panel = 0.9 + 0.2 * labels
    return rows, cols, w, min(rows * h_panel + 0.6, 30)


def small_multiples(panels: dict[str, dict[str, tuple]], scale: tuple[float, float], title: str,
                    ref: float | None = None, series: tuple[str, ...] = ("score",)) -> str:
    """One horizontal bar panel per model over the same labels. ``panels[model][label]`` is a tuple of one value
    per ``series`` (several series are drawn side by side), optionally followed by the first series' spread;
    ``ref`` draws a dashed vertical line (e.g. WMLE's consistency gate). '' when there is nothing to draw."""
    labels: list[str] = []
    for p in panels.values():
        labels += [k for k in p if k not in labels]
    if not panels or not labels:
        return ""
    plt = _plt()
    rows, cols, w, h = _grid(len(panels), len(labels))
    fig, axes = plt.subplots(rows, cols, figsize=(w, h), squeeze=False, sharex=True, sharey=True)
    y = np.arange(len(labels))
    k = len(series)
    bh = 0.8 / k
    colors = ["#4c78a8", "#f58518", "#54a24b", "#b279a2"]
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (model, vals) in zip(axes.flat, panels.items()):
        for s in range(k):
            v = [_finite(vals.get(lab, (None,) * (k + 1))[s]) for lab in labels]
            err = None
            if s == 0:
                sd = [(_finite(vals[lab][k]) if lab in vals and len(vals[lab]) > k else None) for lab in labels]
                err = [x or 0.0 for x in sd] if any(sd) else None
            pos = y + (s - (k - 1) / 2) * bh
            ax.barh(pos, [x if x is not None else 0.0 for x in v], bh, xerr=err, color=colors[s % 4],
                    label=series[s], error_kw={"elinewidth": 0.8, "capsize": 1.5, "ecolor": "#333"})
            for p_, x in zip(pos, v):
                if x is None:
                    ax.text(scale[0], p_, " –", va="center", fontsize=7, color="#999")
                elif k == 1:  # one series: its value beside the bar (a zero is a bar of no length)
                    inside = x > scale[0] + 0.8 * (scale[1] - scale[0])
                    ax.text(x, p_, (f"{x:.3g} " if inside else f" {x:.3g}"), va="center", fontsize=6,
                            ha="right" if inside else "left", color="white" if inside else "#333")
        if ref is not None:
            ax.axvline(ref, color="#b00020", ls="--", lw=0.9)
        ax.set_title(model, fontsize=9)
        ax.set_xlim(*scale)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(labelsize=7)
    axes.flat[0].set_yticks(y, [lab if len(lab) <= 28 else lab[:26] + "…" for lab in labels])
    axes.flat[0].invert_yaxis()
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    if k > 1:  # one legend for the figure, above the panels
        handles, names = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, names, fontsize=7, loc="upper right", ncols=k, frameon=False)
    return _img(fig, title)
