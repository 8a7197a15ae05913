"""HTML building blocks shared by the report's pages: the page shell and its style, escaping, tables, numbers.

Every page is a static file that opens from disk; links between pages and to images or videos are relative.
"""

from __future__ import annotations

import html
import math
import os
from pathlib import Path



def fmt(v) -> str:
    """A score for a table: 3 decimals on a 0–1 scale, 2 above; '–' for anything not a finite number."""
    if not isinstance(v, (int, float)) or not math.isfinite(v):
        return "–"
    return f"{v:.3f}" if abs(v) <= 1.0 else f"{v:.2f}"


CSS = """
body{font-family:system-ui,sans-serif;margin:1.2em 2em;max-width:1320px;color:#222;line-height:1.35}
h1{font-size:1.6em;margin:.2em 0}h2{margin-top:1.6em;border-bottom:2px solid #ddd}h3{margin:1.1em 0 .3em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:right;vertical-align:top}
th:first-child,td.l{text-align:left}thead th{background:#f3f3f3}
.scroll{overflow-x:auto;max-width:100%}
img{max-width:100%;height:auto}
.ok{color:#176417}.unmeasurable{color:#9a6400}.invalid{color:#b00020}.muted{color:#777}
.badge{display:inline-block;padding:1px 7px;border-radius:9px;font-size:.85em;color:#fff;background:#777}
.badge.scored{background:#2e7d32}.badge.unmeasurable{background:#c77700}.badge.invalid{background:#b00020}
figure{margin:0 0 8px 0}.frames{display:flex;flex-wrap:wrap;gap:8px;padding:0}.frames li{list-style:none}.frames figure{margin:0;width:320px}
.frames figcaption{font-size:.8em;color:#555}
.formula{font-family:ui-monospace,monospace;background:#f6f6f6;padding:4px 8px;margin:3px 0;
 white-space:pre-wrap;overflow-wrap:anywhere}
.reason{background:#fff4e5;border-left:4px solid #c77700;padding:6px 10px;overflow-wrap:anywhere}
.reason.invalid{background:#fdecee;border-left-color:#b00020}
:target{background:#fffbd6}
nav a{margin-right:1em}p,li,h1,h3,figcaption,summary{overflow-wrap:anywhere}
video{max-width:100%;background:#000}
td a{text-decoration:none}td.unmeasurable{background:#fff4e5}td.invalid{background:#fdecee}
"""


def esc(x) -> str:
    return html.escape(str(x), quote=True)


def page(title: str, body: str) -> str:
    """A complete HTML document."""
    style = f"<style>{CSS}</style>"
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width'><title>{esc(title)}</title>{style}</head>"
            f"<body>{body}</body></html>")


def table(head: list[str], rows: list[list[str]], cls: str = "") -> str:
    """A table whose cells are HTML already (escape text before); wrapped so a wide one scrolls, not the page."""
    h = "".join(f"<th>{c}</th>" for c in head)
    body = "".join("<tr>" + "".join(_cell(c) for c in r) + "</tr>" for r in rows)
    return f"<div class='scroll'><table class='{cls}'><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table></div>"


def _cell(c: str) -> str:
    return c if c.startswith(("<td", "<th")) else f"<td>{c}</td>"


def num(v, digits: int = 4) -> str:
    """A measured number for a page: ``digits`` significant digits; '–' for missing or not finite."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return "–"
    return f"{v:.{digits}g}"


def score_cell(v, sd=None, n=None) -> str:
    """``mean ± sd`` (sd only over more than one case)."""
    s = fmt(v)
    if sd is not None and isinstance(sd, (int, float)) and math.isfinite(sd) and (n is None or n > 1):
        s += f" <span class='muted'>± {fmt(sd)}</span>"
    return s


def badge(status: str) -> str:
    return f"<span class='badge {esc(status)}'>{esc(status)}</span>"


def rel(target: Path, start: Path) -> str:
    """``target`` relative to the folder ``start`` as a URL path (forward slashes)."""
    return os.path.relpath(Path(target).resolve(), Path(start).resolve()).replace(os.sep, "/")


def slug(s: str) -> str:
    """A file- and anchor-safe name."""
    import re

    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(s))[:80] or "_"


def task_names(section: dict) -> list[str]:
    """Task columns of a leaderboard section, in first-seen order over its models."""
    names: list[str] = []
    for m in section.get("models", {}).values():
        names += [t for t in m.get("tasks", {}) if t not in names]
    return names
