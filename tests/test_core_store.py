from lawful.result import Score
from lawful.store import Store, VideoKey


def test_store_round_trip_and_resume(tmp_path):
    k = VideoKey("principia", "drop-000", "reference", 0)
    with Store(tmp_path / "r.sqlite") as s:
        assert not s.done(k)
        s.put(k, "drop", "scored", {"restitution": Score(status="scored", value=0.97, sides={"F1": 0.8, "F2": 0.81}),
                                    "gravity": Score.unmeasurable("ball_2 lost after frame 12")},
              evidence={"events": [{"object": "ball_1", "name": "impact", "frame": 10.5}]})
    with Store(tmp_path / "r.sqlite") as s:  # reopened: finished work is remembered
        assert s.done(k)
        rows = {r["col"]: r for r in s.scores()}
        assert rows["restitution"]["value"] == 0.97
        assert rows["restitution"]["score"]["sides"]["F2"] == 0.81
        assert rows["gravity"]["status"] == "unmeasurable"
        assert "lost after frame 12" in rows["gravity"]["reason"]
        assert s.evidence(k)["events"][0]["frame"] == 10.5
        s.put_judgement(k, "principia-detect", "verdict", 1.0, "scored", raw='{"verdict": "PASS"}')
        assert s.judgements(rubric="principia-detect")[0]["value"] == 1.0
