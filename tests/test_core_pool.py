"""Workers started by lawful die with their parent, even when it is killed with SIGKILL."""

import os
import signal
import subprocess
import sys
import time

import pytest

CHILD = r"""
import os, sys, time
from lawful.runner.pool import process_pool
with process_pool(2) as pool:
    futs = [pool.submit(os.getpid) for _ in range(8)]
    pids = sorted({f.result() for f in futs})
    futs = [pool.submit(time.sleep, 60) for _ in range(2)]
    print(" ".join(map(str, pids)), flush=True)
    time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead too
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux-only")
def test_killing_the_parent_kills_its_workers():
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert pids and all(_alive(p) for p in pids)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids)


def _worker_flag() -> bool:
    from lawful import threads

    return threads.WORKER


def test_pool_workers_know_every_core_has_a_worker():
    """Decoders in a pool worker keep to one thread (the parent's own decoders do not)."""
    from lawful import threads
    from lawful.runner.pool import process_pool

    with process_pool(2) as pool:
        assert all(pool.submit(_worker_flag).result() for _ in range(4))
    assert threads.WORKER is False
