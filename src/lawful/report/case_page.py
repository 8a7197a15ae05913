"""One page per scored video: status and reason, the video, key frames with the evidence drawn on them,
the measured quantities, each score with its formula and numbers, and the judge's answers.

Key-frame images are small JPEGs beside the page, named by a hash of the video's fingerprint and its
evidence, so a report written again reuses them (no decoding) unless the video or its evidence changed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from lawful.report.formulas import is_formula, score_lines
from lawful.report.html import badge, esc, num, page, rel, table

THUMB_W = 320  # key frames
OVERVIEW_W = 560  # the first frame with every track and event
JPEG_QUALITY = 72


@dataclass
class Item:
    """One video of a run (or, for a judged-only suite, one judged video)."""

    suite: str
    case_id: str
    model: str
    rollout: int
    status: str = ""
    reason: str = ""
    path: str = ""
    task: str = ""
    page: Path = Path()
    evidence: dict = field(default_factory=dict)
    fingerprint: str | None = None
    scores: dict[str, dict] = field(default_factory=dict)  # col -> row (status, value, reason, score)
    judgements: list[dict] = field(default_factory=list)
    case: object = None  # lawful.case.Case when its file is in the run folder
    case_path: Path | None = None


def _save_jpeg(img: np.ndarray, path: Path, width: int) -> None:
    h, w = img.shape[:2]
    if w > width:
        img = cv2.resize(img, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    path.parent.mkdir(parents=True, exist_ok=True)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if ok:
        path.write_bytes(buf.tobytes())


def _key(item: Item) -> str:
    h = hashlib.sha1((item.fingerprint or item.path).encode())
    h.update(json.dumps(item.evidence, sort_keys=True, default=str).encode())
    return h.hexdigest()[:10]


def key_frame_images(item: Item, img_dir: Path) -> list[tuple[Path, str]]:
    """``(jpeg, caption)``: the overview (first frame, all tracks and events) then the key frames with the
    evidence up to each. Reused when already written for this video and evidence; [] when nothing can be drawn."""
    from lawful.report.overlay import Overlay, draw, scale_for, task_probes, video_frames

    ev = item.evidence or {}
    if not ev.get("tracks") or not item.path or not Path(item.path).exists():
        return []
    ov = Overlay.from_evidence(ev)
    keys = ov.key_frames()
    stem = f"{item.case_id}__{item.rollout}-{_key(item)}"
    paths = [img_dir / f"{stem}-overview.jpg"] + [img_dir / f"{stem}-f{f}.jpg" for f, _ in keys]
    caps = ["all tracks and events over the first frame"] + [f"frame {f}" + (f": {c}" if c else "") for f, c in keys]
    if ov.compensated:
        caps[0] += " (camera compensated: positions are in the first frame's coordinates)"
    if not all(p.exists() for p in paths):
        for old in img_dir.glob(f"{item.case_id}__{item.rollout}-*.jpg"):
            old.unlink()
        want = {f for f, _ in keys}
        if item.case is not None:
            ov.probes = task_probes(item.case)
        try:
            for i, frame in video_frames(item.path, item.case, want | {int(ov.frames[0]) if len(ov.frames) else 0}):
                s = scale_for(frame, item.case)
                if len(ov.frames) and i == int(ov.frames[0]):
                    _save_jpeg(draw(frame, ov, None, s), paths[0], OVERVIEW_W)
                if i in want:
                    k = [f for f, _ in keys].index(i)
                    _save_jpeg(draw(frame, ov, i, s), paths[k + 1], THUMB_W)
        except Exception:  # an unreadable file: the page says so instead of images
            return []
    return [(p, c) for p, c in zip(paths, caps) if p.exists()]


def _quantities(ev: dict) -> str:
    q, missing = ev.get("quantities") or {}, ev.get("missing") or {}
    if not q and not missing:
        return ""
    rows = [[f"<td class='l'>{esc(k)}</td>", num(v) if v is not None else
             f"<td class='l unmeasurable'>– {esc(missing.get(k, ''))}</td>"] for k, v in q.items()]
    rows += [[f"<td class='l'>{esc(k)}</td>", f"<td class='l unmeasurable'>– {esc(r)}</td>"]
             for k, r in missing.items() if k not in q]
    return "<h2>measured quantities</h2>" + table(["quantity", "value"], rows)


def _events(ev: dict) -> str:
    es = ev.get("events") or []
    if not es:
        return ""
    rows = [[f"<td class='l'>{esc(e.get('object', ''))}</td>", f"<td class='l'>{esc(e.get('name', ''))}</td>",
             num(e.get("frame")), num(e.get("t")), num(e.get("value"))] for e in es]
    return "<h2>events</h2>" + table(["object", "event", "frame", "t [s]", "value"], rows)


def _regions(ev: dict) -> str:
    regions = (ev.get("tracks") or {}).get("regions") or {}
    if not regions:
        return ""
    rows = []
    for name, r in regions.items():
        ok = r.get("ok") or []
        vals = ", ".join(f"{k} {num(_median(v), 4)}" for k, v in (r.get("values") or {}).items()
                         if v and not isinstance(v[0], list))
        rows.append([f"<td class='l'>{esc(name)}</td>", f"<td class='l'>{esc(r.get('kind', ''))}</td>",
                     f"{sum(bool(x) for x in ok)}/{len(ok)}", num(_median(r.get("sigma") or []), 3),
                     f"<td class='l'>{esc(vals)}</td>"])
    return ("<h2>region readings</h2>"
            + table(["probe", "kind", "readable samples", "median σ", "median values"], rows))


def _median(v) -> float | None:
    a = np.array([x for x in v if isinstance(x, (int, float))], float)
    return float(np.median(a)) if a.size else None


def _scores(item: Item) -> str:
    """Each score with its formula and numbers, or its metrics as a table; a column that is one metric of
    another stored score (Apple-π's ``<subtrack>/<check>``) is shown in that score's table only."""
    out = []
    for col, row in item.scores.items():
        if "/" in col and any(c.startswith(col.split("/")[0]) and "/" not in c for c in item.scores):
            continue
        sc = row.get("score") or {}
        head = f"<h3>{esc(col)}: {num(row.get('value'))} {badge(row.get('status', ''))}</h3>"
        lines = score_lines(sc)
        if lines and not is_formula(sc):
            body = table(["metric", "value"], [[f"<td class='l'>{esc(k)}</td>", num(v)]
                                               for k, v in (sc.get("metrics") or {}).items()])
        else:
            body = "".join(f"<div class='formula'>{esc(line)}</div>" for line in lines)
        if row.get("reason"):
            body += f"<p class='reason {esc(row.get('status', ''))}'>{esc(row['reason'])}</p>"
        out.append(head + body)
    return "<h2>scores</h2>" + "".join(out) if out else ""


def _judgements(item: Item) -> str:
    if not item.judgements:
        return ""
    rows = []
    for j in sorted(item.judgements, key=lambda j: (j["rubric"], j["criterion"], j.get("judge", ""))):
        raw = (j.get("raw") or "").strip()
        rows.append([f"<td class='l'>{esc(j['rubric'])}</td>", f"<td class='l'>{esc(j['criterion'])}</td>",
                     num(j.get("value")), badge(j.get("status", "")), f"<td class='l'>{esc(j.get('judge', ''))}</td>",
                     f"<td class='l'>{esc(raw[:400])}</td>"])
    return "<h2>judge's answers</h2>" + table(["rubric", "criterion", "value", "status", "judge", "answer"], rows)


def video_tag(item: Item, here: Path, embed: bool, media_dir: Path) -> str:
    """An HTML5 video of the item's file: referenced by relative path, or copied beside the report (embed)."""
    if not item.path or not Path(item.path).exists():
        return f"<p class='muted'>video file not found: {esc(item.path or '–')}</p>"
    src = Path(item.path)
    if embed:
        dst = media_dir / f"{item.case_id}__{item.rollout}{src.suffix}"
        if not dst.exists() or dst.stat().st_size != src.stat().st_size:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
        src = dst
    return (f"<video controls muted loop preload='metadata' width='640' src='{esc(rel(src, here))}'></video>"
            f"<p class='muted'>{esc(item.path)}</p>")


def _outputs(item: Item, here: Path) -> str:
    """Apple-π: each subtrack's output file (images shown, others linked)."""
    outs = (item.evidence or {}).get("outputs") or {}
    if not outs:
        return ""
    parts = []
    for sub, p in outs.items():
        if not p:
            parts.append(f"<li>{esc(sub)}: no output</li>")
            continue
        pth = Path(p)
        link = f"<a href='{esc(rel(pth, here))}'>{esc(pth.name)}</a>" if pth.exists() else esc(p) + " (missing)"
        img = ""
        if pth.suffix.lower() in (".mp4", ".webm") and pth.exists():
            img = f"<br><video controls muted preload='metadata' width='{THUMB_W}' src='{esc(rel(pth, here))}'></video>"
        if pth.suffix.lower() in (".png", ".jpg", ".jpeg") and pth.exists():
            thumb = here / "img" / f"{item.case_id}__{item.rollout}-{sub}.jpg"
            if not thumb.exists() or thumb.stat().st_mtime < pth.stat().st_mtime:
                im = cv2.imread(str(pth), cv2.IMREAD_COLOR)
                if im is not None:
                    _save_jpeg(cv2.cvtColor(im, cv2.COLOR_BGR2RGB), thumb, THUMB_W)
            if thumb.exists():
                img = f"<br><img src='{esc(rel(thumb, here))}' alt='{esc(sub)} output' width='{THUMB_W}'>"
        parts.append(f"<li>{esc(sub)}: {link}{img}</li>")
    return "<h2>outputs</h2><ul class='frames'>" + "".join(parts) + "</ul>"


def write_case_page(item: Item, index_href: str, run_href: str, embed: bool = False) -> Path:
    """Write the item's page (and its images) at ``item.page``."""
    here = item.page.parent
    here.mkdir(parents=True, exist_ok=True)
    title = f"{item.case_id} · {item.model} · rollout {item.rollout}"
    body = [f"<nav><a href='{esc(run_href)}'>run report</a><a href='{esc(index_href)}'>{esc(item.suite)} cases</a></nav>",
            f"<h1>{esc(title)}</h1>",
            f"<p>suite <b>{esc(item.suite)}</b>, task <b>{esc(item.task)}</b>, model <b>{esc(item.model)}</b>: "
            f"{badge(item.status)}</p>"]
    if item.reason:
        body.append(f"<p class='reason {esc(item.status)}'><b>reason:</b> {esc(item.reason)}</p>")
    if item.case is not None and getattr(item.case, "prompt", ""):
        body.append(f"<p><b>prompt:</b> {esc(item.case.prompt)}</p>")
    if item.path and Path(item.path).suffix.lower() in (".mp4", ".webm", ".mov", ".mkv", ".avi"):
        body.append(video_tag(item, here, embed, here / "media"))
    imgs = key_frame_images(item, here / "img")
    if imgs:
        fig = [f"<figure><img src='{esc(rel(p, here))}' alt='{esc(c)}'><figcaption>{esc(c)}</figcaption></figure>"
               for p, c in imgs[1:]]
        body.append(f"<h2>evidence over the frames</h2><figure><img src='{esc(rel(imgs[0][0], here))}' "
                    f"alt='overview' width='{OVERVIEW_W}'><figcaption>{esc(imgs[0][1])}</figcaption></figure>"
                    f"<div class='frames'>{''.join(fig)}</div>")
    elif item.case is not None and item.case_path is not None and getattr(item.case, "first_frame", None):
        ff = item.case_path.parent / item.case.first_frame
        if ff.exists():
            thumb = here / "img" / f"{item.case_id}-first.jpg"
            if not thumb.exists():
                im = cv2.imread(str(ff), cv2.IMREAD_COLOR)
                if im is not None:
                    _save_jpeg(cv2.cvtColor(im, cv2.COLOR_BGR2RGB), thumb, OVERVIEW_W)
            if thumb.exists():
                body.append(f"<h2>first frame</h2><img src='{esc(rel(thumb, here))}' alt='first frame'>")
    body += [_scores(item), _quantities(item.evidence), _events(item.evidence), _regions(item.evidence),
             _outputs(item, here), _judgements(item)]
    tb = (item.evidence or {}).get("traceback")
    if tb:
        body.append(f"<h2>traceback</h2><pre class='formula'>{esc(tb)}</pre>")
    item.page.write_text(page(title, "\n".join(b for b in body if b)))
    return item.page
