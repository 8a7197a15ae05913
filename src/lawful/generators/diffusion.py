"""``diffusers:<model id or folder>[?option=value&...]``: image-to-video with a diffusers pipeline.

The checkpoint's ``model_index.json`` (``_class_name``) picks the pipeline: Wan 2.1/2.2 I2V and TI2V,
CogVideoX I2V, LTX-Video and LTX-2, HunyuanVideo(-1.5) I2V, Cosmos video-to-world, Stable Video Diffusion.
Each case's first frame and prompt go in; its duration, fps and size are mapped to the pipeline's rules
(:func:`snap_frames`, :func:`snap_size`); rollout ``k`` samples with its own seed; the frames are written
as H.264 MP4. Weights are never downloaded: the model id must be in the Hugging Face cache (or be a local
folder). Building the generator reads only JSON (no torch); the pipeline is loaded on the first video and
kept for the life of the process. Options (also settable by environment variable, see ``docs/models.md``):

``device`` (cuda if available, else cpu), ``dtype`` (bfloat16 on GPU, float32 on CPU), ``offload``
(none | model | sequential), ``steps``, ``guidance``, ``fps`` (generation and file frame rate; default the
case's), ``size`` (WxH before snapping; default the case's), ``area`` (pixel count at the case's aspect;
``size`` wins), ``vae_tiling`` (1), ``revision`` (a Hub branch); any other option is passed to the pipeline
call when it takes a keyword of that name.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl

from lawful.case import Case
from lawful.generators.base import GenerationError, Generator, register_generator

ENV = {"device": "LAWFUL_DIFFUSERS_DEVICE", "dtype": "LAWFUL_DIFFUSERS_DTYPE", "offload": "LAWFUL_DIFFUSERS_OFFLOAD"}
OWN_OPTIONS = ("device", "dtype", "offload", "steps", "guidance", "fps", "size", "area", "vae_tiling", "revision")
RUNTIME = ("device", "offload", "vae_tiling")  # options that do not change the video (not in the model's name)


@dataclass(frozen=True)
class Rule:
    """A pipeline's shape rules: ``(F - 1) % temporal == 0``; width and height multiples of ``spatial``."""

    family: str
    temporal: int
    spatial: int
    fixed_size: tuple[int, int] | None = None  # (w, h): the only size the checkpoint generates
    fps_arg: str | None = None  # the keyword that tells the pipeline the frame rate


# Defaults before a pipeline is loaded; :func:`rule_for` refines them from the loaded components.
FAMILIES: dict[str, Rule] = {
    "wan": Rule("wan", 4, 16),
    "cogvideox": Rule("cogvideox", 8, 16),  # latents decode in pairs: an even latent count adds 4 frames
    "ltx": Rule("ltx", 8, 32, fps_arg="frame_rate"),
    "hunyuan": Rule("hunyuan", 4, 16),
    "cosmos": Rule("cosmos", 4, 16, fps_arg="fps"),
    "svd": Rule("svd", 1, 64, fps_arg="fps"),
}
PIPELINES = {  # image-to-video pipeline class -> family
    "WanImageToVideoPipeline": "wan", "CogVideoXImageToVideoPipeline": "cogvideox",
    "LTXImageToVideoPipeline": "ltx", "LTX2ImageToVideoPipeline": "ltx",
    "HunyuanVideoImageToVideoPipeline": "hunyuan", "HunyuanVideo15ImageToVideoPipeline": "hunyuan",
    "CosmosVideoToWorldPipeline": "cosmos", "Cosmos2VideoToWorldPipeline": "cosmos",
    "Cosmos2_5_PredictBasePipeline": "cosmos", "StableVideoDiffusionPipeline": "svd",
}
AS_I2V = {"LTXPipeline": "LTXImageToVideoPipeline", "LTX2Pipeline": "LTX2ImageToVideoPipeline"}


def snap_frames(n: float, temporal: int) -> int:
    """The frame count nearest ``n`` with ``(F - 1) % temporal == 0`` (ties go up; at least ``1 + temporal``)."""
    if temporal <= 1:
        return max(1, int(round(n)))
    k = max(1, math.floor((n - 1) / temporal + 0.5))
    return k * temporal + 1


def snap_size(width: float, height: float, multiple: int, area: float | None = None) -> tuple[int, int]:
    """``(w, h)`` at the aspect of ``width x height`` (scaled to ``area`` pixels if given), each the nearest
    multiple of ``multiple`` (at least one multiple)."""
    if area:
        s = math.sqrt(area / (width * height))
        width, height = width * s, height * s
    return (max(multiple, math.floor(width / multiple + 0.5) * multiple),
            max(multiple, math.floor(height / multiple + 0.5) * multiple))


def parse_spec(arg: str) -> tuple[str, dict[str, str]]:
    """``'ID_OR_PATH?k=v&k2=v2'`` -> ``(ID_OR_PATH, {k: v})``."""
    model, _, query = arg.partition("?")
    return model.strip(), dict(parse_qsl(query, keep_blank_values=True))


def hf_cache() -> str:
    """The Hugging Face cache folder, read from the environment now (huggingface_hub reads it once at import)."""
    env = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if env:
        return env
    if os.environ.get("HF_HOME"):
        return os.path.join(os.environ["HF_HOME"], "hub")
    from huggingface_hub import constants

    return constants.HF_HUB_CACHE


def resolve_weights(model: str, revision: str | None = None) -> Path:
    """The local folder holding ``model``: the path itself, or its snapshot in the Hugging Face cache.

    Raises KeyError (one line) when neither has it; nothing is downloaded.
    """
    p = Path(model).expanduser()
    if p.exists():
        if not (p / "model_index.json").is_file():
            raise KeyError(f"diffusers:{model}: no model_index.json in that folder (not a diffusers checkpoint)")
        return p
    if model.startswith(("/", ".", "~")) or model.count("/") > 1:  # a path, not a Hub id
        raise KeyError(f"diffusers:{model}: no such folder")
    if importlib.util.find_spec("huggingface_hub") is None:
        raise KeyError(f"diffusers:{model}: not a folder, and huggingface_hub is not installed "
                       "(pip install 'lawful[diffusers]')")
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(model, revision=revision, cache_dir=hf_cache(), local_files_only=True))
    except Exception:
        rev = f" --revision {revision}" if revision else ""
        raise KeyError(f"diffusers:{model}: weights not in the Hugging Face cache ({hf_cache()}) and not a "
                       f"local folder; fetch them first: {_download_command()} {model}{rev}") from None


def _download_command() -> str:
    """The Hub's download command for the installed huggingface_hub (``hf`` since 0.34)."""
    from huggingface_hub import __version__ as v

    major, minor = (int(x) for x in v.split(".")[:2])
    return "hf download" if (major, minor) >= (0, 34) else "huggingface-cli download"


def pipeline_class(index: dict, model: str) -> str:
    """The image-to-video pipeline class for a checkpoint's ``model_index.json`` (KeyError if it has none)."""
    name = index.get("_class_name", "")
    if name == "WanPipeline" and index.get("expand_timesteps"):  # Wan 2.2 TI2V: one checkpoint for T2V and I2V
        return "WanImageToVideoPipeline"
    name = AS_I2V.get(name, name)
    if name not in PIPELINES:
        known = ", ".join(sorted(PIPELINES))
        raise KeyError(f"diffusers:{model}: pipeline {name or '?'} is not an image-to-video pipeline lawful drives "
                       f"({known})")
    return name


def check_checkpoint(folder: Path, model: str) -> dict:
    """``model_index.json`` of ``folder``, after checking every component it names has its folder."""
    index = json.loads((folder / "model_index.json").read_text())
    missing = [k for k, v in index.items() if not k.startswith("_") and isinstance(v, list) and v and v[0]
               and not (folder / k).is_dir()]
    if missing:
        raise KeyError(f"diffusers:{model}: incomplete checkpoint in {folder}: no {', '.join(sorted(missing))}/")
    return index


def missing_packages() -> list[str]:
    return [m for m in ("torch", "diffusers", "transformers", "accelerate") if importlib.util.find_spec(m) is None]


class Diffusers(Generator):
    """An image-to-video diffusers pipeline, loaded once per process (see the module docstring)."""

    def __init__(self, arg: str):
        model, opts = parse_spec(arg)
        if not model:
            raise KeyError("model 'diffusers' needs a checkpoint: diffusers:<hub id or folder>[?dtype=bfloat16&...]")
        lacking = missing_packages()
        if lacking:
            raise KeyError(f"diffusers:{model}: {', '.join(lacking)} not installed (pip install 'lawful[diffusers]')")
        self.model, self.folder = model, resolve_weights(model, opts.get("revision"))
        self.index = check_checkpoint(self.folder, model)
        self.cls = pipeline_class(self.index, model)
        for k in ENV:
            if k not in opts and os.environ.get(ENV[k]):
                opts[k] = os.environ[ENV[k]]
        _check_options(model, opts)
        self.opts = opts
        # Ray (--executor ray) keeps the pipeline loaded in an actor holding one GPU (or one CPU for device=cpu)
        self.resources = {"CPU": 1.0} if opts.get("device", "").startswith("cpu") else {"GPU": 1.0}
        affecting = sorted((k, v) for k, v in opts.items() if k not in RUNTIME)
        tag = "+" + hashlib.sha256(repr(affecting).encode()).hexdigest()[:8] if affecting else ""
        self.name = f"diffusers:{Path(model.rstrip('/')).name}{tag}"

    # -- shape -----------------------------------------------------------------------------------------
    def plan(self, case: Case, rule: Rule) -> tuple[int, int, int, float]:
        """``(frames, width, height, fps)`` for ``case`` under ``rule`` and this model's options."""
        fps = float(self.opts.get("fps") or case.fps)
        frames = snap_frames(case.duration * fps, rule.temporal)
        if rule.fixed_size:
            return frames, *rule.fixed_size, fps
        if self.opts.get("size"):  # an explicit size wins over area
            w, h = (int(v) for v in self.opts["size"].lower().split("x"))
            return frames, *snap_size(w, h, rule.spatial), fps
        area = float(self.opts["area"]) if self.opts.get("area") else None
        return frames, *snap_size(case.width, case.height, rule.spatial, area), fps

    # -- generation ------------------------------------------------------------------------------------
    def generate(self, case: Case, first_frame: Path | None, out: Path, rollout: int = 0,
                 seed: int | None = None) -> Path:
        if first_frame is None or not first_frame.exists():
            raise GenerationError(f"{self.name}: case {case.id} has no first frame to condition on")
        import numpy as np
        import torch
        from PIL import Image

        from lawful.video import write_video

        pipe = _pipeline(self)
        rule = rule_for(pipe, self.cls)
        frames, w, h, fps = self.plan(case, rule)
        image = Image.open(first_frame).convert("RGB").resize((w, h), Image.LANCZOS)
        kwargs = {"image": image, "prompt": case.prompt, "height": h, "width": w, "num_frames": frames,
                  "generator": torch.Generator("cpu").manual_seed(rollout if seed is None else seed),
                  "output_type": "np"}
        if rule.fps_arg:
            kwargs[rule.fps_arg] = int(round(fps)) if rule.family in ("svd", "cosmos") else fps
        if self.opts.get("steps"):
            kwargs["num_inference_steps"] = int(self.opts["steps"])
        if self.opts.get("guidance"):
            kwargs["guidance_scale"] = float(self.opts["guidance"])
        accepted = _call_keywords(pipe)
        extra = {k: _value(v) for k, v in self.opts.items() if k not in OWN_OPTIONS}
        kwargs.update(extra)
        for k in ("num_inference_steps", "guidance_scale", *extra):  # asked for explicitly: never dropped
            if k in kwargs and k not in accepted:
                raise GenerationError(f"{self.name}: {type(pipe).__name__} takes no option {k!r}")
        with torch.inference_mode():
            result = pipe(**{k: v for k, v in kwargs.items() if k in accepted})
        video = np.asarray(result.frames[0])
        if video.dtype != np.uint8:
            video = (np.clip(video, 0.0, 1.0) * 255 + 0.5).astype(np.uint8)
        if video.ndim != 4 or video.shape[-1] != 3:
            raise GenerationError(f"{self.name}: the pipeline returned frames of shape {video.shape}, not [F, H, W, 3]")
        return write_video(out, video, fps)


_NUMBERS = {"steps": int, "guidance": float, "fps": float, "area": float}


def _check_options(model: str, opts: dict[str, str]) -> None:
    """KeyError (one line, before anything runs) for an option value lawful cannot use."""
    if opts.get("offload", "none") not in ("none", "model", "sequential"):
        raise KeyError(f"diffusers:{model}: offload must be none, model or sequential, not {opts['offload']!r}")
    for k, kind in _NUMBERS.items():
        if k in opts:
            try:
                ok = kind(opts[k]) > 0
            except ValueError:
                ok = False
            if not ok:
                raise KeyError(f"diffusers:{model}: {k} must be a positive {kind.__name__}, not {opts[k]!r}")
    if "size" in opts:
        parts = opts["size"].lower().split("x")
        if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise KeyError(f"diffusers:{model}: size must be WxH, e.g. 832x480, not {opts['size']!r}")


def _value(v: str):
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(v.lower(), v)


def _call_keywords(pipe) -> set[str]:
    import inspect

    return set(inspect.signature(type(pipe).__call__).parameters)


def rule_for(pipe, cls: str) -> Rule:
    """The loaded pipeline's shape rule: VAE compression times transformer patch size, from its components."""
    base = FAMILIES[PIPELINES[cls]]
    vs = getattr(pipe, "vae_scale_factor_spatial", None) or getattr(pipe, "vae_spatial_compression_ratio", None)
    vt = getattr(pipe, "vae_scale_factor_temporal", None) or getattr(pipe, "vae_temporal_compression_ratio", None)
    net = getattr(pipe, "transformer", None) or getattr(pipe, "transformer_2", None)
    cfg = getattr(net, "config", None)
    patch = getattr(cfg, "patch_size", None) or 1
    patch = patch[-1] if isinstance(patch, (list, tuple)) else patch
    spatial = int(vs * patch) if vs and base.family != "svd" else base.spatial
    temporal = base.temporal if not vt or base.family == "svd" else int(vt) * (2 if base.family == "cogvideox" else 1)
    fixed = None
    if base.family == "cogvideox" and getattr(cfg, "use_learned_positional_embeddings", False) and vs:
        fixed = (int(cfg.sample_width * vs), int(cfg.sample_height * vs))
    return Rule(base.family, temporal, spatial, fixed, base.fps_arg)


_LOADED: dict[tuple, object] = {}  # one pipeline per process: loading a second frees the first


def _pipeline(gen: Diffusers):
    key = (str(gen.folder), gen.cls, gen.opts.get("dtype"), gen.opts.get("device"), gen.opts.get("offload"),
           gen.opts.get("vae_tiling"))
    if key not in _LOADED:
        _LOADED.clear()
        try:
            _LOADED[key] = _load(gen)
        except GenerationError as e:  # remembered: the next case fails at once instead of loading again
            _LOADED[key] = e
    if isinstance(_LOADED[key], GenerationError):
        raise _LOADED[key]
    return _LOADED[key]


def _load(gen: Diffusers):
    """Load ``gen``'s pipeline from its local folder onto its device (nothing is downloaded)."""
    import gc
    import warnings

    import transformers

    transformers.utils.logging.set_verbosity_error()  # before diffusers imports its pipelines (they warn)
    transformers.utils.logging.disable_progress_bar()
    import diffusers
    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    device = gen.opts.get("device") or ("cuda" if torch.cuda.is_available() else "cpu")
    dtype_name = gen.opts.get("dtype") or ("bfloat16" if device.startswith("cuda") else "float32")
    dtype = getattr(torch, dtype_name, None)
    if not isinstance(dtype, torch.dtype):
        raise GenerationError(f"{gen.name}: unknown dtype {dtype_name!r} (bfloat16, float16, float32)")
    cls = getattr(diffusers, gen.cls, None)
    if cls is None:
        raise GenerationError(f"{gen.name}: this diffusers ({diffusers.__version__}) has no {gen.cls}; upgrade it")
    _plain_text_cleaning(cls)
    diffusers.utils.logging.set_verbosity_error()
    diffusers.utils.logging.disable_progress_bar()  # the run has its own progress bar
    try:
        with warnings.catch_warnings():  # newer diffusers rename torch_dtype to dtype; older ones know only the former
            warnings.simplefilter("ignore", FutureWarning)
            pipe = cls.from_pretrained(str(gen.folder), torch_dtype=dtype, local_files_only=True)
    except Exception as e:
        raise GenerationError(f"{gen.name}: cannot load {gen.cls} from {gen.folder}: {type(e).__name__}: "
                              f"{str(e).splitlines()[0][:200] if str(e) else ''}") from None
    offload = gen.opts.get("offload", "none")
    if offload == "model":
        pipe.enable_model_cpu_offload(device=device)
    elif offload == "sequential":
        pipe.enable_sequential_cpu_offload(device=device)
    else:
        pipe.to(device)
    if gen.opts.get("vae_tiling") not in (None, "", "0") and hasattr(pipe.vae, "enable_tiling"):
        pipe.vae.enable_tiling()
    pipe.set_progress_bar_config(disable=True)
    return pipe


class _PlainText:
    """Stands in for ftfy (which only repairs mis-decoded Unicode) when it is not installed."""

    @staticmethod
    def fix_text(text: str) -> str:
        return text


def _plain_text_cleaning(cls) -> None:
    """Wan and other pipelines clean prompts with ftfy and fail without it; lawful's prompts are clean text."""
    mod = sys.modules.get(cls.__module__)
    if mod is not None and hasattr(mod, "basic_clean") and "ftfy" not in vars(mod):
        mod.ftfy = _PlainText


register_generator("diffusers")(Diffusers)
