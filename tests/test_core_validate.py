"""The validation runner (any render style) and the never-crash rule of evaluate_video."""

import numpy as np
import pytest

from lawful.runner import validate as V
from lawful.runner.evaluate import evaluate_video
from lawful.suites.base import get_suite
from lawful.video import write_video
from lawful.world import perturb
from lawful.world.styles import FlatStyle, get_style


def test_a_perception_crash_makes_one_video_invalid_with_its_trace(tmp_path, monkeypatch):
    task = get_suite("principia").task("drop")
    case, _ = task.make_case(0, 5)
    path = write_video(tmp_path / "v.mp4", task.render(case, "true"), fps=case.fps)

    def broken(*a, **k):
        raise IndexError("list index out of range")

    monkeypatch.setattr("lawful.perceive.track.track", broken)
    ev = evaluate_video(case, path, task)
    assert ev.status == "invalid"
    assert ev.reason == "perception error: IndexError: list index out of range"
    assert "IndexError" in ev.evidence["traceback"]
    assert {s.status for s in ev.scores.values()} == {"invalid"}


def test_summarise_figures_follow_their_definitions():
    rows = [{"task": "t", "index": i, "seed": i, "case_id": f"c{i}",
             "columns": {"col": {"law": law, "law_status": st, "anti": anti, "anti_status": "scored", "pan10": law - d}}}
            for i, (law, anti, st, d) in enumerate([(1.0, 0.5, "scored", 0.01), (0.0, 0.2, "unmeasurable", 0.0),
                                                   (0.9, 0.4, "scored", 0.03)])]
    out = V.summarise(rows, ["pan10"])
    e = out["columns"]["col"]
    assert e["law_mean"] == pytest.approx(1.9 / 3) and e["anti_mean"] == pytest.approx(1.1 / 3)
    assert e["unmeasurable_share"] == pytest.approx(1 / 3)
    assert e["anti_lower_every_variant"] is False  # the unmeasurable law clip (0) is below its twin (0.2)
    assert e["auc"] == pytest.approx(6 / 9)  # law > anti in 6 of the 9 pairs
    # the shift is over the variants where the law clip and its panned copy were both scored
    assert e["shift"]["pan10"] == pytest.approx(-(0.01 + 0.03) / 2) and e["lost"]["pan10"] == 0.0


def test_a_perturbation_that_makes_a_clip_unmeasurable_is_counted_not_averaged_in():
    rows = [{"task": "t", "index": i, "seed": i, "case_id": f"c{i}",
             "columns": {"col": {"law": 100.0, "law_status": "scored", "anti": 10.0, "anti_status": "scored",
                                 "zoom10": z, "zoom10_status": st}}}
            for i, (z, st) in enumerate([(98.0, "scored"), (0.0, "unmeasurable"), (0.0, "unmeasurable"), (99.0, "scored")])]
    e = V.summarise(rows, ["zoom10"])["columns"]["col"]
    assert e["shift"]["zoom10"] == pytest.approx(-1.5) and e["lost"]["zoom10"] == pytest.approx(0.5)
    assert V._shift_cell(e, "zoom10") == "-1.500 [red]50% u[/red]"
    none = V.summarise(rows[1:3], ["zoom10"])["columns"]["col"]
    assert np.isnan(none["shift"]["zoom10"]) and V._shift_cell(none, "zoom10").startswith("–")


def test_law_clips_under_the_consistency_gate_are_counted_though_the_law_column_shows_p():
    """Studio P29 seed 1000: P 100 on the law clip but C 49.7, so S = 0.15 C = 7.5 and the physics is not counted;
    the law column (P, gate bypassed) hid it. The gated share counts law clips with C < 80 over those with a C,
    per column and overall, and is None for a suite without C (Principia)."""
    def row(c, law=100.0):
        out = {"law": law, "law_status": "scored", "anti": 10.0, "anti_status": "scored"}
        return out if c is None else {**out, "law_C": c}
    rows = [{"task": t, "index": i, "seed": i, "case_id": f"{t}{i}", "columns": {t: row(c)}}
            for t, cs in (("a", (100.0, 49.7, 80.0, 96.2)), ("b", (None, None))) for i, c in enumerate(cs)]
    out = V.summarise(rows)
    assert out["columns"]["a"]["law_gated_share"] == pytest.approx(0.25)  # 80 itself passes the gate
    assert out["columns"]["b"]["law_gated_share"] is None
    assert out["overall"]["law_gated_share"] == pytest.approx(0.25)
    table = V.validation_table({**out, "suite": "wmle", "style": "flat", "n_variants": 4, "perturbations": []})
    assert [c.header for c in table.columns][-1] == "law C<80"
    assert list(table.columns[-1].cells)[:2] == ["[red]25%[/red]", ""]


def test_temporal_breaks_are_reported_as_the_share_caught():
    """A frozen, swapped or shuffled copy of a law clip is caught when it is not scored, scored with C under the
    gate, or (no C: Principia) scored 0; the table shows the share caught instead of a shift."""
    def row(kind_value, kind_status="scored", kind_c=None):
        out = {"law": 100.0, "law_status": "scored", "anti": 10.0, "anti_status": "scored",
               "freeze50": kind_value, "freeze50_status": kind_status}
        return out if kind_c is None else {**out, "freeze50_C": kind_c}
    cases = [row(99.0, kind_c=50.0), row(0.0, "unmeasurable"), row(99.5, kind_c=100.0), row(99.0, kind_c=80.0)]
    rows = [{"task": "t", "index": i, "seed": i, "case_id": f"c{i}", "columns": {"col": r}} for i, r in enumerate(cases)]
    out = V.summarise(rows, ["freeze50"])
    assert out["columns"]["col"]["caught"] == {"freeze50": 0.5} and out["overall"]["caught"] == {"freeze50": 0.5}
    assert [V.caught(r, "freeze50") for r in cases] == [True, True, False, False]  # 80 passes the gate
    assert V.caught({"freeze50": 0.0, "freeze50_status": "scored"}, "freeze50")  # Principia: a score of 0
    assert not V.caught({"freeze50": 0.4, "freeze50_status": "scored"}, "freeze50")
    # physics scored low with C at 100: S = 15 + 0.85 * 60 = 66 < 80, caught; a still scene frozen: not counted
    assert V.caught({"freeze50": 60.0, "freeze50_status": "scored", "freeze50_C": 100.0}, "freeze50")
    assert V.caught({"freeze50": 99.0, "freeze50_status": "scored", "freeze50_changed": 0.0}, "freeze50") is None
    still = [{**r, "columns": {"col": {**r["columns"]["col"], "freeze50_changed": 0.0}}} for r in rows]
    assert V.summarise(still, ["freeze50"])["columns"]["col"]["caught"] == {"freeze50": pytest.approx(np.nan, nan_ok=True)}
    assert V._shift_cell(V.summarise(still, ["freeze50"])["columns"]["col"], "freeze50") == "unchanged"
    a = [np.zeros((10, 10, 3), np.uint8)] * 2
    b = [a[0], a[0].copy()]
    b[1][0, :5] = 9  # 5 of 100 pixels beyond 8 levels in the second frame
    assert V.changed_share(a, b) == pytest.approx(0.05) and V.changed_share(a, a) == 0.0
    table = V.validation_table({**out, "suite": "wmle", "style": "flat", "n_variants": 4, "perturbations": ["freeze50"]})
    assert [c.header for c in table.columns][-1] == "freeze50"
    assert list(table.columns[-1].cells)[0] == "[red]caught 50%[/red]"


def test_temporal_breaks_freeze_swap_and_shuffle_the_frames():
    frames = [np.full((2, 2, 3), i, np.uint8) for i in range(7)]
    ids = lambda fr: [int(f[0, 0, 0]) for f in fr]  # noqa: E731
    assert ids(perturb.freeze_after(frames, 0.5)) == [0, 1, 2, 3, 3, 3, 3]
    assert ids(perturb.swap_neighbours(frames)) == [1, 0, 3, 2, 5, 4, 6]
    shuffled = ids(perturb.shuffle_after_first(frames, 3))
    assert shuffled[0] == 0 and sorted(shuffled) == list(range(7)) and shuffled != list(range(7))
    assert shuffled == ids(perturb.shuffle_after_first(frames, 3))  # the seed decides


def test_level_and_family_means_weigh_tasks_equally():
    class T:
        def __init__(self, level, family):
            self.level, self.family = level, family

    cols = {"P1": {"task": "a", "law_mean": 90.0, "anti_mean": 10.0},
            "P2": {"task": "b", "law_mean": 100.0, "anti_mean": 30.0},
            "P3": {"task": "c", "law_mean": 96.0, "anti_mean": 50.0}}
    tasks = {"a": T("M", "F1"), "b": T("E", "F1"), "c": T("M", "F2")}
    rows = {r["group"]: r for r in V.grouped_means(cols, tasks, {"E": 97.93, "M": 96.64})}
    assert list(rows) == ["level E", "level M", "family F1", "family F2"]
    assert rows["level M"]["law_mean"] == pytest.approx(93.0) and rows["level M"]["paper"] == 96.64
    assert rows["family F1"]["anti_mean"] == pytest.approx(20.0) and rows["family F1"]["tasks"] == 2
    assert rows["family F2"]["paper"] is None


def test_flat_style_is_the_tasks_own_renderer():
    task = get_suite("principia").task("pendulum")
    made = FlatStyle().make("principia", "pendulum", 0, 7)
    case, first = task.make_case(0, 7)
    assert made.case == case and np.array_equal(made.first_frame, first)
    assert np.array_equal(next(iter(made.render("anti"))), next(iter(task.render(case, "anti"))))
    with pytest.raises(KeyError, match="did you mean 'studio'"):
        get_style("studoi")


def test_defocus_spreads_an_edge_and_keeps_flat_areas():
    f = np.zeros((36, 64, 3), np.uint8)
    f[:, 32:] = 200
    (out,) = list(perturb.defocus([f], 0.003))  # sigma = 0.003 x 73.4 = 0.22 px: barely any spread
    (wide,) = list(perturb.defocus([f], 0.03))  # sigma 2.2 px
    assert out[10, 0, 0] == 0 and out[10, 63, 0] == 200
    assert 0 < wide[10, 31, 0] < 100 < wide[10, 32, 0] < 200


def test_exposure_blur_smears_motion_and_keeps_still_pixels():
    frames = [np.zeros((8, 16, 3), np.uint8) for _ in range(3)]
    for i, f in enumerate(frames):
        f[2:4, 4 * i + 2:4 * i + 4] = 255  # a square moving 4 px per frame
        f[6, 0] = 99  # a still pixel
    out = list(perturb.exposure_blur(frames, 3))
    assert out[1][2, 2:4, 0].tolist() == [85, 85] and out[1][2, 6, 0] == 85  # a third of the light each
    assert out[0][2, 2, 0] == 128  # clamped: the first frame averages frames 0 and 1
    assert all(o[6, 0, 0] == 99 for o in out)


def test_the_reencode_control_changes_nothing_but_the_encoding():
    """``reencode`` hands the law clip's frames on untouched, and perturbed copies are written losslessly: its
    column is the law value, up to what the reader's two decode paths leave, so other shifts are the
    perturbations' own."""
    frames = [np.random.default_rng(i).integers(0, 256, (8, 12, 3), dtype=np.uint8) for i in range(3)]
    out = list(V._perturbations()["reencode"](frames, 24.0, 1000))
    assert len(out) == 3 and all(a is b for a, b in zip(out, frames))
    assert "reencode" in V.ROBUSTNESS and "reencode" in V.PERTURBATIONS
    r = V.validate_variant("principia", "pendulum", 0, 1000, "flat", ("reencode",))
    row = r["columns"]["pendulum"]
    assert row["reencode_status"] == "scored" and row["reencode"] == row["law"]  # the same pixels reach the tracker


def test_validate_variant_scores_law_anti_and_perturbed_clips():
    r = V.validate_variant("principia", "pendulum", 0, 1000, "flat", ("pan10",))
    row = r["columns"]["pendulum"]
    assert row["law_status"] == "scored" and row["law"] >= 0.95
    assert row["anti"] < row["law"] - 0.3
    assert abs(row["pan10"] - row["law"]) <= 0.02


def test_a_perturbed_clip_that_is_not_scored_keeps_its_reason(monkeypatch):
    """The reason of a perturbed clip's status is kept beside it (the table's "lost" share needs a why)."""
    blank = {"pan10": lambda fr, fps, seed: (np.full_like(f, 128) for f in fr)}  # nothing left to see
    monkeypatch.setattr(V, "_perturbations", lambda: blank)
    row = V.validate_variant("principia", "pendulum", 0, 1000, "flat", ("pan10",))["columns"]["pendulum"]
    assert row["law_status"] == "scored" and "law_reason" not in row
    assert row["pan10_status"] in ("unmeasurable", "invalid") and row["pan10_reason"]


def test_a_wmle_clip_left_unresolved_says_which_metric_and_why():
    from lawful.job import Evaluation
    from lawful.result import Score

    sc = Score(status="scored", value=0.0, metrics={"P": None, "C": 100.0},
               extra={"unresolved": True, "metric_reasons": {"M1": "block not seen at rest"}})
    v = V.video_values("wmle", Evaluation(status="scored", scores={"P10": sc}))["P10"]
    assert v["status"] == "unmeasurable" and v["reason"] == "M1: block not seen at rest" and v["value"] == 0.0


def test_joined_perturbations_apply_left_to_right():
    """``noise+hue10`` is the hue shift of the noisy frames (not the other order, which rounds differently), and
    a joined column is scored as any other."""
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (24, 32, 3), dtype=np.uint8) for _ in range(3)]
    table = V._perturbations()
    want = list(table["hue10"](list(table["noise"](frames, 24.0, 7)), 24.0, 7))
    got = list(V.perturb_frames("noise+hue10", frames, 24.0, 7))
    other = list(table["noise"](list(table["hue10"](frames, 24.0, 7)), 24.0, 7))
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    assert not all(np.array_equal(a, b) for a, b in zip(got, other))
    row = V.validate_variant("principia", "pendulum", 0, 1000, "flat", ("noise+hue10",))["columns"]["pendulum"]
    assert row["noise+hue10_status"] == "scored" and abs(row["noise+hue10"] - row["law"]) <= 0.05


def test_a_temporal_break_or_an_unknown_part_cannot_be_joined():
    from typer.testing import CliRunner

    from lawful.cli import app

    V.check_perturbation("noise+crf35")
    with pytest.raises(KeyError, match="applied alone"):
        V.check_perturbation("noise+freeze50")
    with pytest.raises(KeyError, match="did you mean 'crf35'"):
        V.check_perturbation("noise+crf36")
    r = CliRunner().invoke(app, ["validate", "--suite", "principia", "--perturb", "shuffle+noise"])
    assert r.exit_code == 2 and "applied alone" in r.output


def test_validate_cli_names_what_it_does_not_know():
    from typer.testing import CliRunner

    from lawful.cli import app

    r = CliRunner().invoke(app, ["validate", "--suite", "principia", "--style", "flta"])
    assert r.exit_code == 2 and "did you mean 'flat'" in r.output
    r = CliRunner().invoke(app, ["validate", "--suite", "principia", "--perturb", "pan11"])
    assert r.exit_code == 2 and "did you mean 'pan10'" in r.output
    r = CliRunner().invoke(app, ["validate", "--suite", "applepi"])
    assert r.exit_code == 2 and "principia" in r.output


def test_first_seed_draws_the_variants_from_other_seeds(monkeypatch):
    """``--first-seed`` reaches every job (scenes nobody tuned the evaluator on), and the result says which."""
    import json

    from typer.testing import CliRunner

    from lawful.cli import app

    seen = []

    def spy(suite, task, index, seed, *a, **k):
        seen.append((task, index, seed))
        row = {"law": 1.0, "anti": 0.0, "law_status": "scored", "anti_status": "scored"}
        return {"task": task, "index": index, "seed": seed, "case_id": f"{task}-{seed}", "columns": {task: row}}

    monkeypatch.setattr(V, "validate_variant", spy)
    r = CliRunner().invoke(app, ["validate", "--suite", "principia", "--tasks", "spring,drop", "--variants", "2",
                                 "--first-seed", "5000", "--workers", "1", "--json"])
    assert r.exit_code == 0, r.output
    assert sorted(seen) == [("drop", 0, 5000), ("drop", 1, 5001), ("spring", 0, 5000), ("spring", 1, 5001)]
    assert json.loads(r.stdout[r.stdout.index("{"):])["first_seed"] == 5000
    seen.clear()
    V.validate("principia", tasks=["spring"], n_variants=1, workers=1, progress=False)
    assert seen == [("spring", 0, V.SEED_BASE)]  # lawful's own figures' seeds by default


def test_cached_clips_are_reused_and_score_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(V, "renderer_fingerprint", lambda suite, style, task: "fixed")  # the drawing code is not edited meanwhile
    first = V.validate_variant("principia", "spring", 0, 1000, "flat", ("noise",), cache=tmp_path)
    clips = sorted(tmp_path.rglob("*.mp4"))
    assert [p.name.split("-")[-1] for p in clips] == ["anti.mp4", "true.mp4"]
    mtimes = [p.stat().st_mtime_ns for p in clips]

    def no_render(*a, **k):
        raise AssertionError("encoded again")

    with monkeypatch.context() as m:
        m.setattr("lawful.video.write_video", no_render)
        again = V.validate_variant("principia", "spring", 0, 1000, "flat", (), cache=tmp_path)
    assert [p.stat().st_mtime_ns for p in clips] == mtimes
    for k in ("law", "anti"):
        assert again["columns"]["spring"][k] == first["columns"]["spring"][k]
    # a perturbed clip starts from the decoded law clip whether the cache was cold, warm or absent
    warm = V.validate_variant("principia", "spring", 0, 1000, "flat", ("noise",), cache=tmp_path)
    none = V.validate_variant("principia", "spring", 0, 1000, "flat", ("noise",))
    assert warm["columns"]["spring"]["noise"] == first["columns"]["spring"]["noise"] == none["columns"]["spring"]["noise"]


def test_a_studio_clip_is_keyed_by_its_own_scene_code_only():
    from pathlib import Path

    import lawful

    root = Path(lawful.__file__).parent
    names = {p.name for p in V._world_imports(root, "lawful.world.studio.scenes_principia_slides")}
    assert {"scenes_principia_slides.py", "_kit_principia_slides.py", "engine.py"} <= names
    assert not any(n.startswith("scenes_wmle") for n in names)  # another task's scene may change freely


def test_a_studio_clip_key_follows_imports_inside_functions_and_in_parentheses(tmp_path):
    world = tmp_path / "lawful" / "world"
    (world / "studio").mkdir(parents=True)
    (world / "studio" / "scene.py").write_text(
        "import numpy as np\n\n\ndef build():\n    from lawful.world.physics import G\n    return G\n\n\n"
        "from lawful.world.studio import (\n    kit,  # the kit, look\n    look as L,\n)\n")
    for name in ("physics.py", "studio/kit.py", "studio/look.py", "studio/__init__.py", "unused.py"):
        (world / name).write_text("G = 9.8\n")
    names = {p.relative_to(world).as_posix() for p in V._world_imports(tmp_path / "lawful", "lawful.world.studio.scene")}
    assert names == {"studio/scene.py", "physics.py", "studio/__init__.py", "studio/kit.py", "studio/look.py"}


def test_a_scene_the_style_fails_to_draw_is_listed_not_the_runs_end(monkeypatch):
    """A studio P9 scene (seed 6001) raised while it was drawn, and the whole 43-minute validation ended with its
    traceback. Its variant is now listed with the error and left out of the figures; the others are scored."""
    from lawful.runner import validate as V
    from lawful.world import styles

    st = styles.get_style("flat")
    orig = type(st).make

    def make(self, suite, task, index, seed):
        if seed == 1001:
            raise ValueError("object ball is not visible in the first frame")
        return orig(self, suite, task, index, seed)

    monkeypatch.setattr(type(st), "make", make)
    res = V.validate("wmle", "flat", n_variants=2, tasks=["P1"], workers=1, progress=False)
    assert res["not_drawn"] == [{"task": "bounce_height_decay", "index": 1, "seed": 1001,
                                 "not_drawn": "ValueError: object ball is not visible in the first frame"}]
    col = res["columns"]["P1"]
    assert col["n"] == 1 and [v["seed"] for v in col["per_variant"]] == [1000]
    from rich.console import Console

    con = Console(width=200, record=True)
    con.print(V.validation_table(res))
    text = con.export_text()
    assert "scene not drawn" in text and "seed 1001" in text
