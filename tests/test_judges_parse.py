"""Reply parsing: JSON in fences or prose, scale checks, `invalid` with a reason — never a guess."""

from __future__ import annotations

import pytest

from lawful.judges.parse import extract_json, parse_answer
from lawful.judges.rubric import load_rubric


def law():
    r = load_rubric("phyground-law")
    return r, [r.criterion("gravity")]


@pytest.mark.parametrize("text,value", [
    ('{"gravity": 4}', 4.0),
    ('```json\n{"gravity": 2}\n```', 2.0),
    ('```\n{"gravity": 5}\n```', 5.0),
    ('The ball falls and speeds up. {"gravity": 3} That is my rating.', 3.0),
    ('{"score": 1}', 1.0),                      # the generic key, single criterion
    ('{"gravity": "4"}', 4.0),                  # a numeric string is still exactly 4
    ('Note {not json}. Final: {"gravity": 2, "why": {"a": 1}}', 2.0),
])
def test_tolerant_extraction_scores(text, value):
    r, c = law()
    a = parse_answer(text, r, c).values["gravity"]
    assert a.status == "scored" and a.value == value


@pytest.mark.parametrize("text,why", [
    ("I would give it a 4 out of 5.", "no JSON"),
    ('{"gravity": 7}', "outside"),
    ('{"gravity": 0}', "outside"),
    ('{"gravity": 3.5}', "whole number"),
    ('{"gravity": "high"}', "not a number"),
    ('{"gravity": true}', "not a number"),
    ('{"inertia": 4}', "lacks key"),
    ("", "no JSON"),
])
def test_unusable_replies_are_invalid_with_reason(text, why):
    r, c = law()
    a = parse_answer(text, r, c).values["gravity"]
    assert a.status == "invalid" and a.value is None and why in a.reason


def test_labels_and_extra_fields_principia():
    r = load_rubric("principia-detect")
    c = [r.criterion("pendulum")]
    a = parse_answer('{"verdict": "fail", "reason": "periods equal"}', r, c)
    assert a.values["pendulum"].value == 0.0 and a.extra == {"reason": "periods equal"}
    assert parse_answer('{"verdict": "PASS"}', r, c).values["pendulum"].value == 1.0
    assert parse_answer('{"verdict": "MAYBE"}', r, c).values["pendulum"].status == "invalid"


def test_not_applicable_only_where_allowed_applepi():
    r = load_rubric("applepi-perception-graphic")
    crit = list(r.criteria)
    vals = {c.key: 0.5 for c in crit}
    vals["velocity_arrows"] = -1
    vals["coord_axes"] = -1
    import json
    a = parse_answer("```json\n" + json.dumps(vals) + "\n```", r, crit).values
    assert a["velocity_arrows"].status == "scored" and a["velocity_arrows"].na
    assert a["coord_axes"].status == "invalid"          # -1 is not allowed there
    assert a["white_background"].value == 0.5


def test_extract_json_prefers_object_with_wanted_key():
    assert extract_json('{"x": 1} then {"gravity": 2}', ["gravity"]) == {"gravity": 2}
    assert extract_json("no braces here") is None
