"""benchmarks/throughput.py's helpers: the peak RSS counts the child's own memory, never its parent's; each run's
own ratio is reported with its spread."""

import importlib.util
from pathlib import Path

import numpy as np

_spec = importlib.util.spec_from_file_location(
    "throughput", Path(__file__).resolve().parents[1] / "benchmarks" / "throughput.py")
throughput = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(throughput)


def test_peak_rss_is_the_childs_own():
    held = np.ones(300 * 2**20, np.uint8)  # the parent holds 300 MB (touched: resident)
    idle, out = throughput.peak_rss_mb("print('idle')")
    big, _ = throughput.peak_rss_mb("import numpy as np\na = np.ones(200 * 2**20, np.uint8)\nprint(a[-1])")
    assert out == "idle"
    assert idle < 100  # a bare interpreter; ru_maxrss would report the parent's >= 300 MB here
    assert 200 <= big < 200 + idle + 60  # the 200 MB it touched, plus the interpreter and numpy
    assert held.sum() == held.size


def test_each_runs_own_ratio_is_summarised_by_median_and_range():
    got = throughput.paired_ratios([(1.0, 2.0), (2.0, 3.0), (0.5, 1.5), (1.0, 1.2)])  # ratios 2, 1.5, 3, 1.2
    assert got == {"median": 1.75, "min": 1.2, "max": 3.0, "runs": 4}
    assert throughput.paired_ratios([(0.1, 0.25)])["median"] == 2.5


def test_a_folder_scored_through_the_pool_scores_as_one_video_at_a_time(tmp_path):
    """The benchmark's folder mode goes through lawful's local executor (2 worker processes): the same
    evaluations, in job order, as scoring each clip in this process."""
    from lawful.video import write_video
    from lawful.world.styles import get_style

    videos = []
    for suite, task in (("principia", "pendulum"), ("wmle", "bounce_height_decay")):
        made = get_style("flat").make(suite, task, 0, 1000)
        short = made.case.model_copy(update={"duration": min(made.case.duration, 2.0)})
        frames = list(made.render("true"))[: int(short.duration * short.fps)]
        videos.append((short, write_video(tmp_path / f"{short.id}.mp4", frames, short.fps)))
    one = throughput._evaluate(videos)
    pooled = throughput._pooled(throughput._jobs(videos, tmp_path / "jobs"), 2)
    assert [e.status for e in pooled] == [e.status for e in one]
    assert max(throughput._differ(a, b) for a, b in zip(one, pooled)) == 0.0
    assert all(e.status == "scored" for e in one)
