"""Built-in models that answer all five subtracks, written in the release's prediction layout.

- ``reference``: the correct answers — the references of the case and the true Deduction video.
- ``counterfactual``: the wrong law — misread labels placed on the wrong side, mirrored objects, a wrong
  formula option, the anti-physics state at t* and the anti-physics video (for datasets without
  lawful's simulation data: the GT clip played backwards and the first frame as the t* state).
- ``static``: repeats the annotated input frame for everything.

Video protocol: each non-Deduction clip is the input frame, then the answer (last frame = answer: all that
scoring and Apple-π's judge read, so more frames would only cost encoding and decoding);
the Deduction clip is the condition frame followed by physics frames where physics frame ``p``
shows ``t = p * physics_duration / n`` (``n`` = the GT's physics frame count), which is what the
release's time rule reads back. Image protocol: one PNG per rollout, keyframe folders for Deduction.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np

from lawful import video as video_mod
from lawful.suites.applepi import scenes
from lawful.suites.applepi.dataset import GTCase, imwrite
from lawful.suites.applepi.infographic import Infographic, formula_answer, target_state
from lawful.suites.applepi.predictions import SUBTRACKS
MODELS = ("reference", "counterfactual", "static")
CLIP_FRAMES = 2  # input, answer (was an 8-frame fade: same scores, 4x the frames to write and read)
CRF, PRESET = 0, "ultrafast"  # lossless RGB H.264: the built-in answers lose nothing to the codec (x264's
# ultrafast lossless mode costs half the CPU of CRF 8 at veryfast to encode, and decodes faster)


def write_video(path: str | Path, frames: list[np.ndarray], fps: float) -> Path:
    """An output clip coded in RGB, lossless (:func:`lawful.video.write_video` with ``codec="rgb"``)."""
    return video_mod.write_video(path, frames, fps, crf=CRF, codec="rgb", preset=PRESET)


def _renderer(case: GTCase):
    """Rebuild the case's renderer from ``lawful.json`` (None for datasets made elsewhere)."""
    if not case.ext or "seed" not in case.ext:
        return None
    from lawful.suites.applepi.render import Renderer
    from lawful.world.appearance import style_variant

    sc = scenes.build(case.ext["task"], case.ext["seed"], case.physics_duration)
    return Renderer(sc, case.ext["width"], case.ext["height"], style_variant(case.ext.get("style_seed")))


def answers(model: str, case: GTCase) -> dict[str, np.ndarray]:
    """The four non-Deduction answer images of ``model`` for ``case``."""
    h, w = case.shape
    inp = case.image("input_image")
    if model == "static":
        return {s: inp for s in SUBTRACKS if s != "deduction"}
    info = case.formula_info
    choices = info.get("choices", {})
    correct = str(info.get("correct_letter", "A"))
    if model == "reference":
        sub = (case.ext or {}).get("substituted_formula") or info.get("correct_formula", "")
        return {
            "perception_text": case.image("annotations_only_reference"),
            "perception_graphic": case.image("objects_only_reference"),
            "formulation_text": formula_answer(correct, info.get("correct_formula", ""), sub, w, h),
            "formulation_graphic": case.image("future_state_reference"),
        }
    if model != "counterfactual":
        raise KeyError(f"unknown built-in model '{model}' (choices: {', '.join(MODELS)})")
    wrong = next((k for k in sorted(choices) if k != correct), "A" if correct != "A" else "B")
    r = _renderer(case)
    if r is not None:
        pt = Infographic(r, wrong=True).annotations_only()
        t_star = case.target_time or 0.0
        fg, _, _ = target_state(r, t_star, law="anti")
    else:
        pt = np.roll(case.image("annotations_only_reference"), int(0.08 * w), axis=1)
        fg = case.clean_first_frame()
    return {
        "perception_text": pt,
        "perception_graphic": np.ascontiguousarray(case.image("objects_only_reference")[:, ::-1]),
        "formulation_text": formula_answer(wrong, choices.get(wrong, ""), choices.get(wrong, ""), w, h),
        "formulation_graphic": fg,
    }


def deduction_frames(model: str, case: GTCase) -> list[np.ndarray]:
    """The Deduction clip: condition frame, then ``n_gt_phys`` physics frames at ``t = p * D / n``."""
    n = case.n_gt_phys
    inp = case.image("input_image")
    if model == "static":
        return [inp] * (n + 1)
    if model == "reference":
        frames = _rendered_gt(case, n)
        if frames is None:
            gt = case.gt_frames(range(n))
            frames = [gt[i] for i in range(n)]
        return [inp] + frames
    if model != "counterfactual":
        raise KeyError(f"unknown built-in model '{model}' (choices: {', '.join(MODELS)})")
    r = _renderer(case)
    if r is None:
        gt = case.gt_frames(range(1, n + 1))
        return [inp] + [gt[i] for i in range(n, 0, -1)]
    times = np.arange(n) * case.physics_duration / n
    pos, _, ang = r.scenario.motion("anti", times)
    return [inp] + [r.frame(pos[k], ang[k])[0] for k in range(n)]


def _rendered_gt(case: GTCase, n: int) -> list[np.ndarray] | None:
    """GT frames ``0 .. n-1`` rendered again as :func:`lawful.suites.applepi.build.write_case` rendered them (a
    third of the CPU of decoding the PNGs), or None unless the case's files show the same renderer and motion:
    the motion equals ``lawful.json``'s truth and the first and last frames equal their PNGs."""
    r = _renderer(case)
    truth = (case.ext or {}).get("truth") or {}
    if r is None or n < 1 or case._frames_dir() is None or len(truth.get("position_m") or []) != case.n_frames:
        return None
    pos, _, ang = r.scenario.motion("true", np.arange(case.n_frames) / case.gt_fps)
    if pos.round(6).tolist() != truth["position_m"]:
        return None
    frames = [r.frame(pos[k], ang[k])[0] for k in range(n)]
    files = case.gt_frames([0, n - 1])
    return frames if all(np.array_equal(frames[i], files[i]) for i in (0, n - 1)) else None


def _fade(a: np.ndarray, b: np.ndarray, n: int) -> list[np.ndarray]:
    """``n`` frames from ``a`` to ``b`` (the last is ``b``); one repeated frame when the two are equal."""
    if a is b or np.array_equal(a, b):
        return [b] * n
    out = []
    for i in range(n):
        k = min(1.0, i / max(1, n - 2))
        out.append(cv2.addWeighted(a, 1 - k, b, k, 0.0))
    out[-1] = b
    return out


def case_dir(pred_root: Path, subtrack: str, case: GTCase) -> Path:
    return pred_root / subtrack / case.entry["path"]


def write_predictions(model: str, case: GTCase, pred_root: str | Path, num_rollouts: int = 3,
                      protocol: str = "video", overwrite: bool = False) -> None:
    """Write ``model``'s outputs for one case under ``pred_root`` (skips files that exist)."""
    pred_root = Path(pred_root)
    fps = case.gt_fps
    todo = [s for s in SUBTRACKS if overwrite or not _complete(case_dir(pred_root, s, case), protocol, s, num_rollouts)]
    if not todo:
        return
    ans = answers(model, case) if any(s != "deduction" for s in todo) else {}
    encoded: dict[tuple, tuple[Path, list]] = {}  # clips made of the same frame objects are encoded once

    def video(path: Path, frames: list[np.ndarray]) -> Path:
        key = tuple(id(f) for f in frames)
        if key in encoded:
            _link(encoded[key][0], path)
            return path
        encoded[key] = (write_video(path, frames, fps), frames)  # the frames keep their ids unique
        return path

    for s in todo:
        d = case_dir(pred_root, s, case)
        d.mkdir(parents=True, exist_ok=True)
        if s == "deduction":
            frames = deduction_frames(model, case)
            if protocol == "video":
                first = video(d / "rollout_00.mp4", frames)
                for r in range(1, num_rollouts):
                    _link(first, d / f"rollout_{r:02d}.mp4")
            else:
                n = len(frames) - 1
                from lawful.score.applepi import pred_physics_index

                for r in range(num_rollouts):
                    kd = d / f"rollout_{r:02d}"
                    for i, t in enumerate(case.deduction_timestamps):
                        p = pred_physics_index(t, n, case.physics_duration)
                        imwrite(kd / f"frame_{i:03d}_t{t:.3f}s.png", frames[p + 1])
            continue
        img = ans[s]
        if protocol == "video":
            first = video(d / "rollout_00.mp4", _fade(case.image("input_image"), img, CLIP_FRAMES))
            for r in range(1, num_rollouts):
                _link(first, d / f"rollout_{r:02d}.mp4")
        else:
            for r in range(num_rollouts):
                imwrite(d / f"rollout_{r:02d}.png", img)


def _link(src: Path, dst: Path) -> None:
    """The deterministic built-in models give identical rollouts: hard-link them (copy if linking fails)."""
    dst.unlink(missing_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _complete(d: Path, protocol: str, subtrack: str, n: int) -> bool:
    if protocol == "video":
        return all((d / f"rollout_{r:02d}.mp4").exists() for r in range(n))
    if subtrack == "deduction":
        return all((d / f"rollout_{r:02d}").is_dir() for r in range(n))
    return all((d / f"rollout_{r:02d}.png").exists() for r in range(n))


def write_submission(pred_root: str | Path, model: str, protocol: str = "video", num_rollouts: int = 3,
                     prompt_version: str = "lawful-1", notes: str = "") -> None:
    p = Path(pred_root)
    p.mkdir(parents=True, exist_ok=True)
    (p / "submission.json").write_text(json.dumps({"model": model, "protocol": protocol,
                                                   "num_rollouts": num_rollouts, "prompt_version": prompt_version,
                                                   "notes": notes or f"lawful built-in model '{model}'"}, indent=2))
