"""Writing a simulated dataset in the Apple-π release layout (the layout: :mod:`lawful.suites.applepi.dataset`).

:func:`write_case` simulates, renders and writes one case; :func:`write_dataset_index` the root's
``dataset.json``. PNG frames are written losslessly with PNG's "up" filter and run-length coding (the
fastest setting to write and to read back on lawful's renders, and smaller than OpenCV's default);
mask arrays are deflated at level 1. Neither choice changes a pixel or a mask value.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from lawful.suites.applepi import motion, scenes
from lawful.suites.applepi.dataset import SCHEMA_VERSION, imwrite
from lawful.suites.applepi.infographic import Infographic, objects_only, target_state
from lawful.suites.applepi.render import Renderer


def save_maps(path: Path, arr: np.ndarray) -> None:
    """``arr`` as an NPZ with key ``maps`` (what ``np.load`` reads), deflated at level 1."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z, \
            z.open("maps.npy", "w", force_zip64=True) as f:
        np.lib.format.write_array(f, np.ascontiguousarray(arr), allow_pickle=False)


def case_relpath(task: str, number: int) -> str:
    return f"cases/{scenes.PILLAR_OF[task]}/{task}/{number:06d}"


def write_case(root: str | Path, task: str, number: int, seed: int, width: int = 832, height: int = 480,
               gt_fps: float = 24.0, duration: float = 2.0, style_seed: int | None = None,
               dense_maps: bool = False, frames: dict | None = None) -> dict:
    """Simulate, render and write one case; returns its ``dataset.json`` entry.

    ``dense_maps=True`` also writes the large optional ``velocity/`` and ``depth/`` arrays (the
    per-object truth in ``lawful.json`` carries the same velocities). ``frames``: a dict that receives
    the GT frames by index (what reading ``rgb/`` back would give), to use them without reading the PNGs.
    """
    from lawful.world.appearance import style_variant

    root = Path(root)
    rel = case_relpath(task, number)
    d = root / rel
    case_id = f"{task}_{number:06d}"
    sc = scenes.build(task, seed, duration)
    r = Renderer(sc, width, height, style_variant(style_seed))
    n_phys = int(round(duration * gt_fps))
    times = np.arange(n_phys + 1) / gt_fps
    pos, vel, ang = sc.motion("true", times)
    T = len(times)
    inst = np.zeros((T, height, width), np.uint8)
    masker = motion.MotionMasker(motion.eval_size((height, width)))
    n_motion = len([k for k in range(1, T) if k / gt_fps <= motion.MAX_SECONDS + 1e-9])
    gt_motion, digest = [], motion.hasher()
    for k in range(T):
        rgb, inst[k] = r.frame(pos[k], ang[k])
        png = imwrite(d / "rgb" / f"{k:04d}.png", rgb)
        if frames is not None:
            frames[k] = rgb
        if k == 0:
            clean = rgb
        elif k <= n_motion:  # Physics-IQ motion masks while the frame is in memory (kept with the case)
            gt_motion.append(masker.push(rgb))
            digest.update(png)
    motion.store_gt_masks(d, np.stack(gt_motion) if gt_motion else np.zeros((0,) + masker.size[::-1], bool),
                          [d / "rgb" / f"{k:04d}.png" for k in range(1, n_motion + 1)], digest=digest.hexdigest())
    ig = Infographic(r)
    annotated = ig.annotated(clean)
    imwrite(d / "initial_state/rgb_0000.png", annotated)
    imwrite(d / "initial_state/rgb_0000_white_bg.png", ig.annotations_only())
    imwrite(d / "initial_state/rgb_0000_white_bg_obj.png", objects_only(r, 0.0))
    np.save(d / "initial_state/mask_0000.npy", inst[0] > 0)
    np.save(d / "initial_state/instance_segmentation_0000.npy", inst[0])
    ded_ts = scenes.pick_times(duration, sc.events, (0.25, 0.5, 0.75))
    t_star = scenes.discriminative_time(sc)
    fs, fs_inst, fs_info = target_state(r, t_star)
    imwrite(d / "instantaneous_velocity/velocity_annotated.png", fs)
    np.save(d / "instantaneous_velocity/mask.npy", fs_inst)
    save_maps(d / "mask/maps.npz", inst > 0)
    save_maps(d / "instance_segmentation/maps.npz", inst)
    if dense_maps:
        vmap = np.zeros((T, height, width, 3), np.float16)
        for k in range(T):
            for i in range(len(sc.bodies)):
                vmap[k][inst[k] == i + 1] = (vel[k, i, 0], vel[k, i, 1], 0.0)
        save_maps(d / "velocity/maps.npz", vmap)
        save_maps(d / "depth/maps.npz", np.full((T, height, width), r.cam.distance, np.float16))
    cam_json = json.dumps({"intrinsic": r.cam.intrinsic(), "extrinsic": r.cam.extrinsic()})
    (d / "camera_parameters").mkdir(parents=True, exist_ok=True)
    for k in range(T):
        (d / "camera_parameters" / f"{k:04d}.json").write_text(cam_json)
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, 0xF0])
    options = [sc.formula.correct] + list(sc.formula.distractors)
    order = rng.permutation(4)
    choices = {"ABCD"[j]: options[i] for j, i in enumerate(order)}
    correct_letter = "ABCD"[int(np.flatnonzero(order == 0)[0])]
    meta = {
        "schema_version": SCHEMA_VERSION, "case_id": case_id, "physics_type": task, "is_realworld": False,
        "annotation": sc.annotation(), "input_image": "initial_state/rgb_0000.png", "clean_first_frame": "rgb/0000.png",
        "annotations_only_reference": "initial_state/rgb_0000_white_bg.png",
        "objects_only_reference": "initial_state/rgb_0000_white_bg_obj.png",
        "future_state_reference": "instantaneous_velocity/velocity_annotated.png", "target_time": t_star,
        "physics_duration": float(duration), "gt_frames_dir": "rgb", "gt_video": None, "gt_fps": float(gt_fps),
        "gt_total_frames": T, "deduction_timestamps": ded_ts,
        "formula_info": {"choices": choices, "correct_letter": correct_letter, "correct_formula": sc.formula.correct},
    }
    (d / "metadata.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False))
    ext = {
        "lawful_version": 1, "task": task, "pillar": sc.pillar, "seed": int(seed), "style_seed": style_seed,
        "width": width, "height": height, "pixels_per_metre": r.cam.ppm,
        "objects": [{"instance_id": i + 1, "id": b.id, "name": b.name, "shape": b.shape, "color": list(b.color),
                     "size_m": [b.width, b.height], "mass": b.mass} for i, b in enumerate(sc.bodies)],
        "truth": {"t": times.round(6).tolist(), "position_m": pos.round(6).tolist(), "velocity_m_s": vel.round(6).tolist()},
        "target_state": fs_info, "events": [[n, round(t, 6)] for n, t in sc.events],
        "substituted_formula": sc.formula.substituted, "anti_description": sc.anti_description,
    }
    (d / "lawful.json").write_text(json.dumps(ext, ensure_ascii=False))
    return {"case_id": case_id, "path": rel, "split": "test"}


def write_dataset_index(root: str | Path, entries: list[dict], name: str = "lawful-orchard-sim",
                        prompt_version: str = "lawful-1", num_rollouts: int = 3) -> Path:
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    p = root / "dataset.json"
    p.write_text(json.dumps({"name": name, "version": SCHEMA_VERSION, "prompt_version": prompt_version,
                             "num_rollouts": num_rollouts, "cases": entries}, indent=2))
    return p
