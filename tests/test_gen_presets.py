"""Model presets: the data agrees with itself and the papers, names resolve to specs, status says what is
missing, and a preset whose weights are in the (local, fake) Hugging Face cache is ready."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lawful.case import Case
from lawful.cli import app
from lawful.generators.base import get_generator
from lawful.generators.diffusion import FAMILIES, OWN_OPTIONS, parse_spec
from lawful.generators.presets import PAPERS, make, presets, spec_with, status


def test_presets_data_is_consistent():
    table = presets()
    assert len(table) >= 20
    for p in table.values():
        assert p.access in ("diffusers", "veo", "replicate", "fal", "closed"), p.name
        assert set(p.native) == {"width", "height", "fps", "frames"}, p.name
        assert set(p.papers) <= set(PAPERS), p.name
        if p.access == "closed":
            assert not p.spec and p.how, p.name
            continue
        assert p.spec.startswith(p.access + ":"), p.name
        if p.access == "diffusers":
            model, opts = parse_spec(p.spec.partition(":")[2])
            assert set(opts) <= set(OWN_OPTIONS), p.name
            assert float(opts["fps"]) == p.native["fps"], p.name  # generates at the model's own rate
            if "area" in opts:
                assert int(opts["area"]) == p.native["width"] * p.native["height"], p.name
        else:
            assert p.env, p.name
    covered = {s for p in table.values() for s in p.papers}
    assert covered == set(PAPERS)  # every paper's generators are there
    # Principia's Table 5 and WMLE's model list, as the presets carry them
    assert table["wan2.2-i2v-a14b"].native == {"width": 1280, "height": 720, "fps": 16, "frames": 81}
    assert table["wan2.2-ti2v-5b"].native == {"width": 1280, "height": 704, "fps": 24, "frames": 121}
    assert table["cosmos-predict2.5-2b"].native == {"width": 1280, "height": 704, "fps": 16, "frames": 93}
    assert table["cogvideox1.5-5b-i2v"].native["frames"] == 81 and table["minimax-h3"].native["width"] == 1344


def test_spec_with_options():
    p = presets()["wan2.2-i2v-a14b"]
    assert spec_with(p, "") == p.spec
    assert spec_with(p, "steps=30&fps=24") == p.spec + "&steps=30&fps=24"
    _, opts = parse_spec(spec_with(p, "fps=24").partition(":")[2])
    assert opts["fps"] == "24"  # a later option wins


def _fake_hub(root, repo: str, index: dict) -> None:
    """A Hugging Face cache entry as huggingface_hub lays it out: refs/main -> snapshots/<commit>/..."""
    base = root / ("models--" + repo.replace("/", "--"))
    commit = "0" * 40
    (base / "refs").mkdir(parents=True)
    (base / "refs" / "main").write_text(commit)
    snap = base / "snapshots" / commit
    snap.mkdir(parents=True)
    (snap / "model_index.json").write_text(json.dumps(index))
    for k, v in index.items():
        if isinstance(v, list) and v[0]:
            (snap / k).mkdir()


def test_status_and_names(tmp_path, monkeypatch):
    pytest.importorskip("huggingface_hub")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    table = presets()
    wan = table["wan2.2-i2v-a14b"]
    ready, why = status(wan)
    assert not ready and why.startswith("weights not downloaded (") and why.endswith(
        " download Wan-AI/Wan2.2-I2V-A14B-Diffusers)")
    assert status(table["veo-3.1"]) == (False, "GEMINI_API_KEY is not set")
    assert status(table["seedance-2.5"])[1].startswith("closed: ")
    with pytest.raises(KeyError, match=r"--models seedance-2\.5=folder:DIR"):
        get_generator("seedance-2.5")

    _fake_hub(tmp_path, "Wan-AI/Wan2.2-I2V-A14B-Diffusers",
              {"_class_name": "WanImageToVideoPipeline", "transformer": ["diffusers", "WanTransformer3DModel"],
               "transformer_2": ["diffusers", "WanTransformer3DModel"], "vae": ["diffusers", "AutoencoderKLWan"],
               "image_encoder": [None, None]})
    assert status(wan) == (True, "ready")
    gen = get_generator("wan2.2-i2v-a14b")
    assert gen.name == "wan2.2-i2v-a14b" and gen.resources == {"GPU": 1.0}
    assert get_generator("wan2.2-i2v-a14b:offload=model").name == "wan2.2-i2v-a14b"  # runtime only: same model
    assert get_generator("wan2.2-i2v-a14b:steps=30").name.startswith("wan2.2-i2v-a14b+")
    # A 2.5 s Principia case (640x360) at the preset's 16 fps and 1280x720 pixel count: 40 -> 41 frames
    case = Case(id="c", suite="principia", task="drop", width=640, height=360, fps=24, duration=2.5)
    assert gen.plan(case, FAMILIES["wan"]) == (41, 1280, 720, 16.0)
    assert make(wan, "fps=24&size=832x480").plan(case, FAMILIES["wan"]) == (61, 832, 480, 24.0)  # size wins

    monkeypatch.setenv("GEMINI_API_KEY", "x")
    assert status(table["veo-3.1"]) == (True, "ready")
    monkeypatch.setattr("lawful.generators.diffusion.missing_packages", lambda: ["torch"])
    assert "torch not installed" in status(wan)[1]


def test_models_command_and_run_fail_fast(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("REPLICATE_API_TOKEN", raising=False)
    r = CliRunner().invoke(app, ["models"])
    assert r.exit_code == 0, r.output
    for name in presets():
        assert name in r.output
    assert "REPLICATE_API_TOKEN is not set" in r.output and "PhyGround" in r.output
    r = CliRunner().invoke(app, ["models", "--json"])
    rows = json.loads(r.output)
    assert {x["name"] for x in rows} == set(presets()) and not any(x["ready"] for x in rows if x["access"] == "closed")
    r = CliRunner().invoke(app, ["models", "wan2.2-i2v-a14b"])
    assert "Principia: Wan2.2-14B, 1280x720, 81 frames, 16 fps" in r.output
    r = CliRunner().invoke(app, ["run", "--models", "wan2.2-i2v-a14b", "--tasks", "drop", "-n", "1", "-o",
                                 str(tmp_path / "run"), "-q"])
    assert r.exit_code == 2 and "weights not in the Hugging Face cache" in r.output
    assert not (tmp_path / "run" / "videos").exists()  # failed before anything ran
