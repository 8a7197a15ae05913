"""Reading datasets in the Apple-π release layout (Orchard "Apple-PI-GT" v1.0); lawful writes its simulated
cases with :mod:`lawful.suites.applepi.build`.

Layout::

    dataset.json                      name, version, prompt_version, num_rollouts, cases[{case_id, path, split}]
    cases/<Pillar>/<Task>/<NNNNNN>/
        metadata.json                 the release's keys (see METADATA_KEYS)
        initial_state/                rgb_0000.png (annotated input), rgb_0000_white_bg.png (annotations only),
                                      rgb_0000_white_bg_obj.png (objects only), mask_0000.npy,
                                      instance_segmentation_0000.npy
        instantaneous_velocity/       velocity_annotated.png (state at t*), mask.npy (instance ids at t*)
        rgb/NNNN.png                  GT frames; index 0 is the clean condition frame
        mask/maps.npz                 [T, H, W] foreground          (key "maps")
        instance_segmentation/maps.npz [T, H, W] ids, 0 = background
        velocity/maps.npz             [T, H, W, 3] world-space velocity, m/s (simulator cases)
        depth/maps.npz                [T, H, W] metres               (simulator cases)
        camera_parameters/NNNN.json   intrinsic 3x3, extrinsic 3x4   (simulator cases)
        lawful.json                   optional extension written by lawful (task seed, scale, per-object truth)
        lawful_motion.npz             optional: the GT's Physics-IQ motion masks, with a digest of the frames

Real-world cases set ``is_realworld`` and ``gt_video`` (a file in the case folder) and may have no
``rgb/`` frames, velocity, depth or camera files.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import OrderedDict
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from lawful import images
from lawful.suites.applepi import scenes

SCHEMA_VERSION = "1.0"
METADATA_KEYS = (
    "schema_version", "case_id", "physics_type", "is_realworld", "annotation", "input_image", "clean_first_frame",
    "annotations_only_reference", "objects_only_reference", "future_state_reference", "target_time",
    "physics_duration", "gt_frames_dir", "gt_video", "gt_fps", "gt_total_frames", "deduction_timestamps",
    "formula_info",
)
ANNOTATION_DIFF = 40  # a first-frame pixel differing from the clean frame by more than this is an annotation


class DatasetError(ValueError):
    """A dataset that cannot be read; the message is one line for the user."""


def imread(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise DatasetError(f"{path}: missing or unreadable image")
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


def imwrite(path: Path, rgb: np.ndarray) -> bytes:
    """Write an RGB image (PNG for ``.png``: :data:`lawful.images.PNG_PARAMS`); returns the file's bytes."""
    try:
        return images.write(path, rgb)
    except ValueError as e:
        raise DatasetError(str(e)) from None


def _load_maps(path: Path) -> np.ndarray:
    try:
        with np.load(path) as z:
            return z["maps"]
    except (OSError, KeyError, ValueError) as e:
        raise DatasetError(f"{path}: cannot read maps ({type(e).__name__})") from None


# --- reading ---------------------------------------------------------------------------------
SHARED_CASES = 1  # cases whose loaded data (frames, masks, motion masks, colour key) a process keeps
_SHARED: OrderedDict[tuple, dict] = OrderedDict()


def fingerprint(d: Path) -> tuple:
    """The case folder and every file in it with its size and modification time: the key of its shared data."""
    items = []
    stack = [d]
    while stack:
        with os.scandir(stack.pop()) as it:
            for e in it:
                if e.is_dir(follow_symlinks=True):
                    stack.append(Path(e.path))
                else:
                    st = e.stat()
                    items.append((e.path, st.st_size, st.st_mtime_ns))
    return (str(d.resolve()), tuple(sorted(items)))


def shared_cache(d: Path) -> dict:
    """The data already loaded for this case folder in this process (same files), or a new empty dict.

    Every :class:`GTCase` of the same unchanged folder shares it, so ground truth is read and derived
    once for all models, rollouts and outputs; a changed file gives a new key.
    """
    try:
        key = fingerprint(d)
    except OSError:
        return {}
    if key in _SHARED:
        _SHARED.move_to_end(key)
        return _SHARED[key]
    _SHARED[key] = {}
    while len(_SHARED) > SHARED_CASES:
        _SHARED.popitem(last=False)
    return _SHARED[key]


def _float_after(key: str, text: str) -> float | None:
    m = re.search(rf"(?<![A-Za-z_]){re.escape(key)}\s*=\s*(-?\d+(?:\.\d+)?)", text)
    return float(m.group(1)) if m else None


class GTCase:
    """One case folder of a dataset, read lazily. Images are ``uint8 [H, W, 3]`` RGB."""

    def __init__(self, root: str | Path, entry: dict):
        self.root = Path(root)
        self.entry = entry
        self.dir = self.root / entry["path"]
        try:
            self.meta = json.loads((self.dir / "metadata.json").read_text())
        except FileNotFoundError:
            raise DatasetError(f"{self.dir}: no metadata.json") from None
        except json.JSONDecodeError as e:
            raise DatasetError(f"{self.dir / 'metadata.json'}: not valid JSON ({e.msg})") from None
        ext = self.dir / "lawful.json"
        self.ext: dict | None = json.loads(ext.read_text()) if ext.exists() else None
        self._cache: dict = shared_cache(self.dir)

    # --- identity and timing
    @property
    def case_id(self) -> str:
        return str(self.meta.get("case_id") or self.entry.get("case_id"))

    @property
    def task(self) -> str:
        return str(self.meta.get("physics_type") or Path(self.entry["path"]).parent.name)

    @property
    def pillar(self) -> str:
        parts = Path(self.entry["path"]).parts
        return parts[-3] if len(parts) >= 3 else scenes.PILLAR_OF.get(self.task, "unknown")

    @property
    def is_realworld(self) -> bool:
        return bool(self.meta.get("is_realworld", False))

    @property
    def physics_duration(self) -> float:
        return float(self.meta["physics_duration"])

    @property
    def gt_fps(self) -> float:
        return float(self.meta.get("gt_fps") or 24.0)

    @property
    def deduction_timestamps(self) -> list[float]:
        return [float(t) for t in self.meta.get("deduction_timestamps") or []]

    @property
    def target_time(self) -> float | None:
        t = self.meta.get("target_time")
        return None if t is None else float(t)

    @property
    def formula_info(self) -> dict:
        info = dict(self.meta.get("formula_info") or {})
        ch = info.get("choices")
        if isinstance(ch, list):  # accept a list of four formulas (A-D in order)
            info["choices"] = {"ABCD"[i]: re.sub(r"^[A-D][.):]\s*", "", str(c)) for i, c in enumerate(ch[:4])}
        return info

    # --- images
    def image(self, key: str) -> np.ndarray:
        """A reference image by metadata key (``input_image``, ``clean_first_frame``, ``…_reference``)."""
        if key not in self._cache:
            rel = self.meta.get(key)
            if not rel:
                if key == "clean_first_frame":
                    return self.gt_frames([0])[0]
                raise DatasetError(f"{self.dir}: metadata has no '{key}'")
            self._cache[key] = imread(self.dir / rel)
        return self._cache[key]

    @property
    def shape(self) -> tuple[int, int]:
        """``(H, W)`` of the input image: from its header while the image itself is not needed (a Deduction
        score reads only this), else from the image."""
        rel = self.meta.get("input_image")
        if "input_image" not in self._cache and "shape" not in self._cache and rel:
            from PIL import Image

            try:
                with Image.open(self.dir / rel) as im:
                    if im.format == "PNG" and "exif" not in im.info:  # no EXIF turn for OpenCV's reader to apply
                        self._cache["shape"] = im.size[::-1]
            except (OSError, ValueError):
                pass  # unreadable: image() says why
        return self._cache["shape"] if "shape" in self._cache else self.image("input_image").shape[:2]

    def _frames_dir(self) -> Path | None:
        rel = self.meta.get("gt_frames_dir")
        if rel and (self.dir / rel).is_dir() and len(list((self.dir / rel).glob("*.png"))) > 1:
            return self.dir / rel
        return None

    @cached_property
    def n_frames(self) -> int:
        """GT frames including the condition frame at index 0."""
        fd = self._frames_dir()
        if fd is not None:
            return len(list(fd.glob("*.png")))
        if self.meta.get("gt_video"):
            from lawful.video import probe

            return probe(self.dir / self.meta["gt_video"], count=True).n_frames
        mp = self.dir / "mask/maps.npz"
        if mp.exists():
            return int(self.masks().shape[0])
        return int(self.meta["gt_total_frames"])

    @property
    def n_gt_phys(self) -> int:
        return self.n_frames - 1

    def gt_frames(self, indices) -> dict[int, np.ndarray]:
        """GT frames by full index (0 = condition frame), from ``rgb/`` or decoded from ``gt_video``."""
        want = sorted({int(i) for i in indices})
        out = {}
        fd = self._frames_dir()
        if fd is not None:
            files = sorted(fd.glob("*.png"))
            for i in want:
                key = ("gt", i)
                if key not in self._cache:
                    self._cache[key] = imread(files[i])
                out[i] = self._cache[key]
            return out
        if not self.meta.get("gt_video"):
            raise DatasetError(f"{self.dir}: no GT frames (neither {self.meta.get('gt_frames_dir')}/ nor gt_video)")
        from lawful.video import iter_frames

        missing = [i for i in want if ("gt", i) not in self._cache]
        if missing:
            last = max(missing)
            for i, f in iter_frames(self.dir / self.meta["gt_video"]):
                if i in missing:
                    self._cache[("gt", i)] = f
                if i >= last:
                    break
        for i in want:
            if ("gt", i) not in self._cache:
                raise DatasetError(f"{self.dir}: GT video has no frame {i}")
            out[i] = self._cache[("gt", i)]
        return out

    def remember_frames(self, frames: dict[int, np.ndarray]) -> None:
        """Share GT frames already in memory (by full index; e.g. just written) with every reading of the case."""
        self._cache.update({("gt", int(i)): f for i, f in frames.items()})

    def iter_gt_frames(self, indices):
        """GT frames in increasing index order, one at a time (not kept unless already cached)."""
        want = sorted({int(i) for i in indices})
        fd = self._frames_dir()
        if fd is None and self.meta.get("gt_video") and not all(("gt", i) in self._cache for i in want):
            from lawful.video import iter_frames

            it = iter(want)
            nxt = next(it, None)
            for i, f in iter_frames(self.dir / self.meta["gt_video"]):
                if nxt is None:
                    break
                if i == nxt:
                    yield f
                    nxt = next(it, None)
            if nxt is not None:
                raise DatasetError(f"{self.dir}: GT video has no frame {nxt}")
            return
        files = sorted(fd.glob("*.png")) if fd is not None else None
        for i in want:
            if ("gt", i) in self._cache:
                yield self._cache[("gt", i)]
            elif files is not None:
                if i >= len(files):
                    raise DatasetError(f"{self.dir}: no GT frame {i}")
                yield imread(files[i])
            else:
                yield self.gt_frames([i])[i]

    # --- dense arrays
    def masks(self) -> np.ndarray:
        if "masks" not in self._cache:
            self._cache["masks"] = _load_maps(self.dir / "mask/maps.npz").astype(bool)
        return self._cache["masks"]

    def instances(self) -> np.ndarray:
        """``[T, H, W]`` instance ids; without the file, connected components of the foreground masks."""
        if "inst" not in self._cache:
            p = self.dir / "instance_segmentation/maps.npz"
            if p.exists():
                self._cache["inst"] = _load_maps(p)
            else:
                m = self.masks()
                inst = np.zeros(m.shape, np.int32)
                for k in range(len(m)):
                    _, inst[k] = cv2.connectedComponents(m[k].astype(np.uint8))
                self._cache["inst"] = inst
        return self._cache["inst"]

    @property
    def object_ids(self) -> list[int]:
        return [int(i) for i in np.unique(self.instances()[0]) if i != 0]

    def annotation_mask(self) -> np.ndarray:
        """Pixels where the annotated input differs from the clean first frame."""
        if "ann" not in self._cache:
            a = self.image("input_image").astype(np.int16)
            c = self.clean_first_frame().astype(np.int16)
            self._cache["ann"] = np.abs(a - c).max(-1) > ANNOTATION_DIFF
        return self._cache["ann"]

    def clean_first_frame(self) -> np.ndarray:
        if "clean" not in self._cache:
            rel = self.meta.get("clean_first_frame")
            self._cache["clean"] = imread(self.dir / rel) if rel and (self.dir / rel).exists() else self.gt_frames([0])[0]
        return self._cache["clean"]

    def colour_key(self):
        """The case's :class:`~lawful.suites.applepi.segment.ColourKey` (cached)."""
        if "key" not in self._cache:
            from lawful.suites.applepi.segment import ColourKey

            self._cache["key"] = ColourKey(self.clean_first_frame(), self.instances()[0])
        return self._cache["key"]

    # --- physical scale and velocities
    def _camera(self, k: int) -> dict | None:
        p = self.dir / "camera_parameters" / f"{k:04d}.json"
        if not p.exists():
            files = sorted((self.dir / "camera_parameters").glob("*.json")) if (self.dir / "camera_parameters").is_dir() else []
            if not files:
                return None
            p = files[min(k, len(files) - 1)]
        return json.loads(p.read_text())

    def metres_per_pixel(self, oid: int, k: int) -> float | None:
        """Metres per pixel in the object's plane at full frame index ``k``.

        lawful cases: the recorded scale. Simulator cases: depth at the object / focal length.
        Real recordings: the annotated size (``d``/``s``) over the object's first-frame mask diameter,
        when the annotation lists one size per object; otherwise None (velocity not applicable).
        """
        if self.ext and self.ext.get("pixels_per_metre"):
            return 1.0 / float(self.ext["pixels_per_metre"])
        cam = self._camera(k)
        dp = self.dir / "depth/maps.npz"
        if cam is not None and dp.exists():
            if "depth" not in self._cache:
                self._cache["depth"] = _load_maps(dp)
            m = self.instances()[k] == oid
            if m.any():
                return float(np.asarray(self._cache["depth"][k][m], np.float64).mean()) / float(cam["intrinsic"][0][0])
        sizes = self._annotated_sizes()
        ids = self.object_ids
        if sizes and len(sizes) == len(ids) and oid in ids:
            area = float((self.instances()[0] == oid).sum())
            if area > 0:
                return sizes[ids.index(oid)] / (2 * math.sqrt(area / math.pi))
        return None

    def _annotated_sizes(self) -> list[float]:
        out = []
        for part in str(self.meta.get("annotation", "")).split("/"):
            if ":" not in part or part.strip().lower().startswith(("environment", "ground", "scene")):
                continue
            body = part.split(":", 1)[1]
            v = _float_after("d", body)
            v = _float_after("s", body) if v is None else v
            if v is not None:
                out.append(v)
        return out

    def velocity(self, oid: int, k: int) -> np.ndarray | None:
        """In-plane velocity (m/s, image axes x right / y down) of object ``oid`` at full frame index ``k``."""
        if self.ext and "truth" in self.ext:
            i = [o["instance_id"] for o in self.ext["objects"]].index(oid)
            v = self.ext["truth"]["velocity_m_s"][k][i]
            return np.array([v[0], -v[1]], float)
        vp = self.dir / "velocity/maps.npz"
        cam = self._camera(k)
        if vp.exists():
            if "vel" not in self._cache:
                self._cache["vel"] = _load_maps(vp)
            m = self.instances()[k] == oid
            if not m.any():
                return None
            v = np.asarray(self._cache["vel"][k][m], np.float64).mean(0)
            if cam is not None:
                v = np.asarray(cam["extrinsic"], float)[:, :3] @ v
            else:
                v = np.array([v[0], -v[1], v[2]])
            return v[:2]
        # Real recordings: track the GT masks themselves.
        from lawful.suites.applepi.segment import centroid

        inst = self.instances()
        k0, k1 = max(1, k - 1), min(len(inst) - 1, k + 1)
        if k1 <= k0:
            return None
        c0, c1 = centroid(inst[k0] == oid), centroid(inst[k1] == oid)
        mpp = self.metres_per_pixel(oid, k)
        if c0 is None or c1 is None or mpp is None:
            return None
        return (np.array(c1) - np.array(c0)) * self.gt_fps / (k1 - k0) * mpp


class Dataset:
    """A dataset root with ``dataset.json``; iterate for :class:`GTCase` objects."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        p = self.root / "dataset.json"
        try:
            self.index = json.loads(p.read_text())
        except FileNotFoundError:
            raise DatasetError(f"{self.root}: no dataset.json (not an Apple-π dataset root)") from None
        except json.JSONDecodeError as e:
            raise DatasetError(f"{p}: not valid JSON ({e.msg})") from None
        self.entries = list(self.index.get("cases", []))

    @property
    def num_rollouts(self) -> int:
        return int(self.index.get("num_rollouts", 3))

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self):
        for e in self.entries:
            yield GTCase(self.root, e)

    def case(self, case_id: str) -> GTCase:
        for e in self.entries:
            if e["case_id"] == case_id:
                return GTCase(self.root, e)
        raise KeyError(case_id)
