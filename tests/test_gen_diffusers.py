"""The diffusers image-to-video adapter: shape rules on known numbers, fail-fast messages, and tiny random-weight
Wan 2.2 (A14B layout: two transformers) and CogVideoX I2V pipelines built offline that generate real videos
for Principia cases through ``lawful run``, which are then scored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lawful.generators.diffusion import FAMILIES, pipeline_class, resolve_weights, snap_frames, snap_size

torch = pytest.importorskip("torch")
diffusers = pytest.importorskip("diffusers")


# -- the rules on known numbers -----------------------------------------------------------------------------
def test_snap_frames_known_numbers():
    assert snap_frames(80, 4) == 81  # Wan: 5 s at 16 fps -> its native 81
    assert snap_frames(96, 4) == 97  # a 4 s case at 24 fps
    assert snap_frames(58, 4) == 57 and snap_frames(59, 4) == 61  # 58/4 = 14.5 steps: a tie goes up to 15*4+1
    assert snap_frames(48, 8) == 49  # CogVideoX: 6 s at 8 fps -> its native 49
    assert snap_frames(121, 8) == 121 and snap_frames(2, 8) == 9  # LTX 8k+1; never below one latent step
    assert snap_frames(14.2, 1) == 14  # SVD: any count
    for n in range(1, 200, 7):
        for t in (4, 8):
            assert (snap_frames(n, t) - 1) % t == 0


def test_snap_size_known_numbers():
    assert snap_size(832, 480, 16) == (832, 480)
    assert snap_size(640, 360, 16) == (640, 368)  # 22.5 multiples: a tie goes up
    assert snap_size(1280, 720, 32) == (1280, 736)
    assert snap_size(640, 360, 16, area=832 * 480) == (848, 480)  # 842.6 x 474.0 snapped
    assert snap_size(10, 10, 16) == (16, 16)


def test_checkpoint_classes():
    assert pipeline_class({"_class_name": "WanPipeline", "expand_timesteps": True}, "m") == "WanImageToVideoPipeline"
    assert pipeline_class({"_class_name": "LTXPipeline"}, "m") == "LTXImageToVideoPipeline"
    assert pipeline_class({"_class_name": "CogVideoXImageToVideoPipeline"}, "m") == "CogVideoXImageToVideoPipeline"
    with pytest.raises(KeyError, match="not an image-to-video pipeline"):
        pipeline_class({"_class_name": "WanPipeline"}, "Wan-AI/Wan2.1-T2V-14B-Diffusers")  # text-to-video only
    assert FAMILIES["wan"].temporal == 4 and FAMILIES["ltx"].spatial == 32


def test_missing_weights_fail_fast_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(KeyError) as e:
        resolve_weights("Wan-AI/Wan2.2-I2V-A14B-Diffusers")
    msg = e.value.args[0]
    assert "not in the Hugging Face cache" in msg and "download Wan-AI/Wan2.2-I2V-A14B-Diffusers" in msg
    assert "\n" not in msg
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "model_index.json").write_text(json.dumps(
        {"_class_name": "WanImageToVideoPipeline", "vae": ["diffusers", "AutoencoderKLWan"]}))
    from lawful.generators.base import get_generator

    with pytest.raises(KeyError, match="incomplete checkpoint.*no vae/"):
        get_generator(f"diffusers:{tmp_path / 'ckpt'}")
    (tmp_path / "ckpt" / "vae").mkdir()
    assert get_generator(f"diffusers:{tmp_path / 'ckpt'}?device=cpu").resources == {"CPU": 1.0}
    for bad, what in (("steps=two", "steps must be a positive int"), ("size=64", "size must be WxH"),
                      ("offload=disk", "offload must be none, model or sequential"), ("fps=0", "fps must be")):
        with pytest.raises(KeyError, match=what):
            get_generator(f"diffusers:{tmp_path / 'ckpt'}?{bad}")
    from typer.testing import CliRunner

    from lawful.cli import app

    r = CliRunner().invoke(app, ["run", "--models", "diffusers:Wan-AI/Wan2.2-I2V-A14B-Diffusers", "--tasks", "drop",
                                 "-n", "1", "-o", str(tmp_path / "run"), "-q"])
    assert r.exit_code == 2 and "not in the Hugging Face cache" in r.output and "Traceback" not in r.output


# -- tiny pipelines, built offline ------------------------------------------------------------------------
def _tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = ["<pad>", "</s>", "<unk>"] + "a the two ball balls falls fall rolls slide swing down from of and".split()
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")


def _text_encoder():
    from transformers import T5Config, T5EncoderModel

    torch.manual_seed(0)
    return T5EncoderModel(T5Config(vocab_size=32, d_model=32, d_ff=37, d_kv=8, num_layers=1, num_heads=4,
                                   relative_attention_num_buckets=8))


def tiny_wan(folder: Path) -> Path:
    """Wan 2.2 I2V A14B layout (high- and low-noise transformers, no image encoder), a few thousand weights."""
    from diffusers import AutoencoderKLWan, UniPCMultistepScheduler, WanImageToVideoPipeline, WanTransformer3DModel

    torch.manual_seed(0)
    vae = AutoencoderKLWan(base_dim=3, z_dim=16, dim_mult=[1, 1, 1, 1], num_res_blocks=1,
                           temperal_downsample=[False, True, True])
    net = dict(patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=12, in_channels=36, out_channels=16,
               text_dim=32, freq_dim=256, ffn_dim=32, num_layers=1, cross_attn_norm=True,
               qk_norm="rms_norm_across_heads", rope_max_seq_len=32)
    sched = UniPCMultistepScheduler(prediction_type="flow_prediction", use_flow_sigmas=True, flow_shift=3.0)
    pipe = WanImageToVideoPipeline(tokenizer=_tokenizer(), text_encoder=_text_encoder(), vae=vae, scheduler=sched,
                                   transformer=WanTransformer3DModel(**net), transformer_2=WanTransformer3DModel(**net),
                                   image_encoder=None, image_processor=None, boundary_ratio=0.875)
    pipe.save_pretrained(folder)
    return folder


def tiny_cogvideox(folder: Path) -> Path:
    """CogVideoX-5b-I2V layout: learned positional embeddings, so one fixed size (8x6 latents = 64x48 px)."""
    from diffusers import (AutoencoderKLCogVideoX, CogVideoXDDIMScheduler, CogVideoXImageToVideoPipeline,
                           CogVideoXTransformer3DModel)

    torch.manual_seed(0)
    net = CogVideoXTransformer3DModel(num_attention_heads=2, attention_head_dim=16, in_channels=8, out_channels=4,
                                      time_embed_dim=2, text_embed_dim=32, num_layers=1, sample_width=8,
                                      sample_height=6, sample_frames=9, patch_size=2, temporal_compression_ratio=4,
                                      max_text_seq_length=16, use_rotary_positional_embeddings=True,
                                      use_learned_positional_embeddings=True)
    vae = AutoencoderKLCogVideoX(down_block_types=("CogVideoXDownBlock3D",) * 4,
                                 up_block_types=("CogVideoXUpBlock3D",) * 4, block_out_channels=(8, 8, 8, 8),
                                 latent_channels=4, layers_per_block=1, norm_num_groups=2, temporal_compression_ratio=4)
    pipe = CogVideoXImageToVideoPipeline(tokenizer=_tokenizer(), text_encoder=_text_encoder(), vae=vae,
                                         transformer=net, scheduler=CogVideoXDDIMScheduler())
    pipe.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    return {"wan": tiny_wan(root / "wan"), "cog": tiny_cogvideox(root / "cog")}


# Momentum cases last 2.5 s: at fps=4 that asks for 10 frames -> Wan 9 (4k+1), CogVideoX 9 (8k+1).
WAN_OPTS = "?steps=2&fps=4&size=64x36"  # 64x36 snaps to 64x32 (multiples of 16)
COG_OPTS = "?steps=2&fps=4&max_sequence_length=16"  # fixed 64x48; the last option goes to the pipeline call


def test_rollout_seeds(tiny, tmp_path):
    """Same seed -> the same video; another seed -> another video (runs first: the Wan pipeline stays loaded)."""
    from lawful.generators.base import get_generator
    from lawful.runner.run import build_cases
    from lawful.suites.base import get_suite
    from lawful.case import load_case
    from lawful.video import read_frames

    cp = build_cases(get_suite("principia"), tmp_path / "cases", 1, tasks=["momentum_height"], progress=False)[0]
    case = load_case(cp)
    gen = get_generator(f"diffusers:{tiny['wan']}{WAN_OPTS.replace('fps=4', 'fps=2')}")  # 5 frames
    vids = [read_frames(gen.generate(case, case.first_frame_path(cp), tmp_path / f"{i}.mp4", 0, seed=s))
            for i, s in enumerate((7, 7, 8))]
    from lawful.generators.diffusion import Rule, _pipeline, rule_for

    assert rule_for(_pipeline(gen), gen.cls) == Rule("wan", 4, 16)  # VAE 4x/8x, patch 2
    assert vids[0].shape == (5, 32, 64, 3) and (vids[0] == vids[1]).all()
    assert abs(vids[0].astype(float) - vids[2].astype(float)).mean() > 0.5
    from lawful.generators.base import GenerationError

    odd = get_generator(f"diffusers:{tiny['wan']}{WAN_OPTS}&no_such_option=1")  # same pipeline, nothing to run
    with pytest.raises(GenerationError, match="takes no option 'no_such_option'"):
        odd.generate(case, case.first_frame_path(cp), tmp_path / "odd.mp4", 0, seed=0)
    assert not (tmp_path / "odd.mp4").exists()


def test_tiny_wan_and_cogvideox_generate_and_score_principia(tiny, tmp_path):
    from typer.testing import CliRunner

    from lawful.cli import app
    from lawful.store import Store
    from lawful.video import probe

    models = f"diffusers:{tiny['wan']}{WAN_OPTS},diffusers:{tiny['cog']}{COG_OPTS}"
    r = CliRunner().invoke(app, ["run", "--suite", "principia", "--tasks", "momentum_height", "-n", "2",
                                 "--models", models, "--workers", "1", "-o", str(tmp_path), "-q"])
    assert r.exit_code == 0, r.output
    with Store(tmp_path / "results.sqlite") as store:
        rows = store.videos("principia")
    by_model: dict[str, list[dict]] = {}
    for row in rows:
        by_model.setdefault(row["model"], []).append(row)
    assert len(by_model) == 2 and all(len(v) == 2 for v in by_model.values())
    expect = {"wan": (9, 64, 32), "cog": (9, 64, 48)}
    for model, vids in by_model.items():
        frames, w, h = expect["wan" if model.startswith("diffusers:wan") else "cog"]
        for v in vids:
            assert v["status"] in ("scored", "unmeasurable", "invalid"), v
            assert "generator" not in (v["reason"] or ""), v  # generated: any verdict is the scorer's
            info = probe(v["path"], count=True)
            assert (info.n_frames, info.width, info.height) == (frames, w, h)
            assert abs(info.fps - 4.0) < 1e-6
    assert "diffusers:wan" in r.output and "diffusers:cog" in r.output  # both on the leaderboard
    from lawful.generators.base import get_generator
    from lawful.generators.diffusion import Rule, _pipeline, rule_for

    cog = get_generator(f"diffusers:{tiny['cog']}{COG_OPTS}")  # still loaded: the last model of the run
    assert rule_for(_pipeline(cog), cog.cls) == Rule("cogvideox", 8, 16, (64, 48))
