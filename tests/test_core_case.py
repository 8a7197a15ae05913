import json

import pytest

from lawful.case import Case, CaseError, ObjectSpec, case_schema, load_case


def _case(**kw):
    base = dict(id="drop-000", suite="principia", task="drop", known={"ground_y": 300.0}, objects=[
        {"id": "ball_1", "shape": "sphere", "color": [220, 40, 40], "box": [10, 10, 30, 30]},
        {"id": "ball_2", "shape": "sphere", "color": [40, 40, 220], "box": [60, 10, 80, 30]}])
    base.update(kw)
    return base


def test_round_trip(tmp_path):
    c = Case.model_validate(_case(known={"ground_y": 300.0, "h1": 1.2}))
    p = c.save(tmp_path)
    back = load_case(p)
    assert back == c
    assert back.object("ball_1").color == (220, 40, 40)
    assert back.n_frames == 96  # 4 s at 24 fps


@pytest.mark.parametrize(
    "text, needle",
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"id": "x", "suite": "principia"}), "task"),
        (json.dumps(_case(objects=[{"id": "a"}])), "needs a color, a box or a mask"),
        (json.dumps(_case(objects=[{"id": "a", "box": [5, 5, 1, 1]}])), "x1 > x0"),
        (json.dumps(_case(fps=0)), "fps"),
        (json.dumps(_case(id="a__1")), "__"),
        (json.dumps(_case(colour=[1, 2, 3])), "colour"),
    ],
)
def test_malformed_case_is_one_line_error(tmp_path, text, needle):
    p = tmp_path / "c.json"
    p.write_text(text)
    with pytest.raises(CaseError) as e:
        load_case(p)
    msg = str(e.value)
    assert needle in msg and "\n" not in msg and str(p) in msg


def test_missing_case_file(tmp_path):
    with pytest.raises(CaseError, match="no such case file"):
        load_case(tmp_path / "nope.json")


def test_schema_documents_fields():
    s = case_schema()
    assert {"id", "suite", "task", "objects", "known"} <= set(s["properties"])
    assert "ObjectSpec" in s["$defs"]
    ObjectSpec(id="a", color=(1, 2, 3))


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"objects": [{"id": "ball_1", "box": [10, 10, 30, 30]}]}, "no object 'ball_2'"),
        ({"known": {}}, "'ground_y'"),
        ({"known": {"ground_y": float("nan")}}, "known.ground_y is nan"),
        ({"objects": [{"id": "ball_1", "box": [10, 10, 30, 30], "known": {"mass": float("inf")}},
                      {"id": "ball_2", "box": [40, 10, 60, 30]}]}, "objects[ball_1].known.mass is inf"),
        ({"windw": {"start": 3}}, "windw"),
        ({"schema_version": 2, "roi": [900, 10, 950, 40]}, "roi [900.0, 10.0, 950.0, 40.0] lies outside"),
        ({"schema_version": 2, "window": {"start": 30, "end": 10}}, "window end (10.0) must come after"),
        ({"schema_version": 2, "exclude": [[5, 5, 1, 1]]}, "exclude[0] must be"),
        ({"schema_version": 2, "exclude": [[[5, 5], [9, 9]]]}, "exclude[0] must be a box"),
        ({"schema_version": 2, "exclude": [[[5, 5], [9, 9], [7, 7]]]}, "exclude[0]: the polygon has no area"),
        ({"schema_version": 2, "roi": [[900, 10], [950, 10], [950, 40]]}, "roi [[900.0, 10.0], [950.0, 10.0], [950.0, 40.0]] lies outside"),
        ({"schema_version": 2, "exclude": [[[5, 5], [9, float("nan")], [7, 1]]]}, "exclude[0][1][1] is nan"),
        ({"schema_version": 2, "camera": "tripod"}, "camera"),
        ({"schema_version": 3}, "schema_version"),
    ],
)
def test_bad_cases_fail_at_load_naming_the_field(tmp_path, change, needle):
    p = tmp_path / "c.json"
    p.write_text(json.dumps(_case(**change)).replace("NaN", "NaN"))
    with pytest.raises(CaseError) as e:
        load_case(p)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_a_version_2_case_round_trips_and_version_1_still_loads(tmp_path):
    v2 = Case.model_validate(_case(schema_version=2, window={"start": 118, "end": 205}, release=0.02,
                                   roi=[0, 0, 172, 1716], exclude=[[0, 0, 60, 340]], camera="fixed", rotation=90,
                                   capture_fps=120, width=832))
    back = load_case(v2.save(tmp_path))
    assert back == v2 and back.window.frames(30.0) == (118, 205) and back.camera == "fixed"
    assert Case.model_validate(_case(window={"start": 1.5, "end": 2.0, "unit": "s"})).window.frames(30.0) == (45, 60)
    v1 = load_case(Case.model_validate(_case()).save(tmp_path / "v1"))
    assert v1.schema_version == 1 and v1.window is None and v1.camera == "auto"


@pytest.mark.parametrize("suite", ["wmle", "recordings"])
def test_the_docs_list_what_each_task_needs_as_the_code_declares_it(suite):
    """docs/case-format.md carries the table generated from the task classes (regenerate with
    ``python -m lawful.suites.requirements SUITE``)."""
    from pathlib import Path

    from lawful.suites.requirements import markdown_table

    docs = (Path(__file__).parents[1] / "docs" / "case-format.md").read_text()
    assert markdown_table(suite) in docs


def test_schema_prints_each_tasks_objects_and_parameters():
    from typer.testing import CliRunner

    from lawful.cli import app

    r = CliRunner().invoke(app, ["schema", "--suite", "wmle"])
    assert r.exit_code == 0, r.output
    needs = json.loads(r.output)
    assert needs["sliding_onset"]["known"] == {"hinge": "first-frame [x, y] (px) of the board's hinge"}
    assert needs["equal_mass_collision"]["objects"] == ["red_ball", "blue_ball"]
    assert CliRunner().invoke(app, ["schema", "--suite", "nope"]).exit_code == 2


def test_a_wmle_case_without_a_required_parameter_fails_at_load(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"id": "p6", "suite": "wmle", "task": "sliding_onset", "objects": [
        {"id": "block_left", "color": [200, 0, 0]}, {"id": "block_right", "color": [0, 0, 200]}]}))
    with pytest.raises(CaseError, match="known.hinge is missing"):
        load_case(p)
