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
