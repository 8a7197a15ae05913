"""Judge fine-tuning data in PhyGround's shape (seed 001 §3.5, §G.1).

One record per (video, criterion, label): the video's frames sampled at 4 fps and capped at 12,
the evaluation prompt exactly as the judge sees it (with the expected outcome), and the JSON
target ``{"<criterion key>": score}``. Records go to ``train.jsonl`` in a chat layout most
fine-tuning tools read (``messages`` with ``<image>`` placeholders, ``images`` paths relative to
the file); frames are written once per video as JPEG under ``images/``.

Labels come from a score table (human ratings: columns ``case_id``, ``model``, ``criterion``,
``score``, optional ``rollout``) or, without one, from the run's scored judgements (distilling
a judge). A label off the rubric's scale is skipped and counted, never clipped.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from PIL import Image

from lawful.judges.agreement import load_table
from lawful.judges.frames import read_at, sample_indices
from lawful.judges.judge import STORE_FILE, VIDEO_LABELS, VideoItem, discover
from lawful.judges.parse import check_value
from lawful.judges.rubric import Rubric, load_rubric
from lawful.store import Store
from lawful.video import VideoError, probe

SFT_FPS, SFT_MAX_FRAMES = 4.0, 12


def _labels(run_dir: Path, table: Path | None, rubrics: list[Rubric]) -> list[dict]:
    if table is not None:
        return [{"case_id": str(r["case_id"]), "model": str(r["model"]), "rollout": int(r.get("rollout") or 0),
                 "criterion": str(r["criterion"]), "score": r.get("score")} for r in load_table(table)]
    names = {r.name for r in rubrics}
    with Store(run_dir / STORE_FILE) as st:
        return [{"case_id": r["case_id"], "model": r["model"], "rollout": r["rollout"], "criterion": r["criterion"],
                 "score": r["value"]} for r in st.judgements() if r["rubric"] in names and r["status"] == "scored"]


def _frames(item: VideoItem, img_dir: Path, out_dir: Path, max_side: int | None) -> list[str]:
    """Write the video's SFT frames once; return their paths relative to ``out_dir``."""
    vdir = img_dir / item.key.model / f"{item.key.case_id}__{item.key.rollout}"
    if vdir.exists():
        files = sorted(vdir.glob("f*.jpg"))
        if files:
            return [str(p.relative_to(out_dir)) for p in files]
    n = probe(item.video).n_frames
    idx, frames = read_at(item.video, sample_indices(n, item.case.duration, SFT_FPS, SFT_MAX_FRAMES), max_side)
    vdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, f in zip(idx, frames):
        p = vdir / f"f{i:05d}.jpg"
        Image.fromarray(f).save(p, quality=90)
        paths.append(str(p.relative_to(out_dir)))
    return paths


def export_sft(run_dir: str | Path, out_dir: str | Path, *, labels: str | Path | None = None,
               rubrics: tuple[str, ...] = ("phyground-general", "phyground-law"),
               max_side: int | None = 640) -> dict:
    """Write ``<out>/train.jsonl`` and ``<out>/images/``; return counts."""
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    rubs = [load_rubric(r) for r in rubrics]
    owner = {c.key: r for r in rubs for c in r.criteria}
    items = {(it.key.case_id, it.key.model, it.key.rollout): it for it in discover(run_dir)}
    out_dir.mkdir(parents=True, exist_ok=True)
    img_dir = out_dir / "images"
    skipped: Counter = Counter()
    n = 0
    with (out_dir / "train.jsonl").open("w") as f:
        for lab in _labels(run_dir, Path(labels) if labels else None, rubs):
            rub = owner.get(lab["criterion"])
            if rub is None:
                skipped["criterion not in the rubrics"] += 1
                continue
            item = items.get((lab["case_id"], lab["model"], lab["rollout"]))
            if item is None:
                skipped["no video for the label"] += 1
                continue
            crit = rub.criterion(lab["criterion"])
            if crit not in rub.criteria_for(item.case):
                skipped["criterion does not apply to the case"] += 1
                continue
            v = check_value(lab["score"], rub, crit)
            if v.status != "scored":
                skipped["label off the scale"] += 1
                continue
            try:
                images = _frames(item, img_dir, out_dir, max_side)
            except VideoError:
                skipped["unreadable video"] += 1
                continue
            prompt = rub.render(item.case, [crit])
            score = int(v.value) if rub.scale.integer else v.value
            target = {crit.key: score}
            user = VIDEO_LABELS["video"] + "\n" + "<image>" * len(images) + "\n" + prompt
            rec = {"id": f"{lab['model']}/{lab['case_id']}/{lab['rollout']}/{crit.key}", "rubric": rub.id,
                   "case_id": lab["case_id"], "model": lab["model"], "rollout": lab["rollout"],
                   "criterion": crit.key, "images": images,
                   "messages": [{"role": "system", "content": rub.system}, {"role": "user", "content": user},
                                {"role": "assistant", "content": json.dumps(target)}],
                   "target": target}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    return {"records": n, "videos": sum(1 for d in img_dir.glob("*/*") if d.is_dir()) if img_dir.exists() else 0,
            "skipped": dict(skipped), "path": str(out_dir / "train.jsonl")}
