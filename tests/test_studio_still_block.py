"""A rod pushes a block over on a glossy floor, in front of a still, jittering camera (WMLE P10, seed 5001).

The wall and floor are plain, so nothing of frame 0's still background pins x; the rod sliding along its length
and the floor's reflections of rod and block did, and the intensity registrations followed them: a path of 5.8
work px along x, used, that then moved the block 7 frame px at the clip's end while it lay still in the picture
(one jump: C 75, under the gate, on a lawful clip). A path that moves an object sitting still in the picture is
not the camera's, where the backdrop gives no other evidence; and the rod's band and its mirror image are now kept out
of the estimates (P10's movers), so the path is not followed along the rod in the first place.
"""

import studio_support  # noqa: F401 (GL set-up, or skip the module)

from lawful.runner.evaluate import evaluate_video  # noqa: E402
from lawful.video import write_video  # noqa: E402
from lawful.world.studio import StudioStyle  # noqa: E402


def test_a_pusher_and_reflections_do_not_move_a_still_camera(tmp_path):
    sc = StudioStyle().make("wmle", "edge_pivot_rotation", 1, 5001)
    clip = write_video(tmp_path / "push.mp4", sc.render("true"), sc.case.fps)
    ev = evaluate_video(sc.case, clip)
    assert ev.status == "scored", ev.reason
    cam = ev.evidence["tracks_meta"]["camera"]
    path = cam["reason"].split("path: ")[-1]
    assert "sat still in the picture" in path or "not compensated" in path, cam["reason"]
    if cam["used"] and not cam["static"]:  # what is used is the per-frame shake: within the studio's jitter (<= 1 px)
        assert cam["shake"]["used"] and max(cam["shake"]["rms_px"]) <= 1.0, cam["reason"]
    (s,) = ev.scores.values()
    assert s.measurement.notes["C_checks"]["continuity"] == 1.0
    assert s.metrics["C"] >= 80


def test_an_anti_clip_is_not_scored_lawful_by_a_camera_that_follows_the_rod(tmp_path):
    """Seed 7000, the twin (the support edge slides): a still camera, a plain wall; the rod's tip and its reflection
    carried a 41 px camera path along the push, which carried the sliding edge back, and the twin scored 100. With the
    rod's band and its mirror image kept out of the estimates (P10's movers) it is not scored as lawful."""
    sc = StudioStyle().make("wmle", "edge_pivot_rotation", 0, 7000)
    clip = write_video(tmp_path / "anti.mp4", sc.render("anti"), sc.case.fps)
    ev = evaluate_video(sc.case, clip)
    (s,) = ev.scores.values()
    cam = ev.evidence["tracks_meta"]["camera"]
    assert s.status == "unmeasurable" or s.metrics["P"] < 50, (s.status, s.metrics, cam)
