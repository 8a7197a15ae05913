import json

import pytest

from lawful.case import Case, CaseError, ObjectSpec, case_schema, load_case


def _case(**kw):
    base = dict(id="drop-000", suite="principia", task="drop", objects=[
        {"id": "ball_1", "shape": "sphere", "color": [220, 40, 40], "box": [10, 10, 30, 30]}])
    base.update(kw)
    return base


def test_round_trip(tmp_path):
    c = Case.model_validate(_case(known={"h1": 1.2}))
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
