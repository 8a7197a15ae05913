"""The one way lawful starts worker processes."""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager


_PR_SET_PDEATHSIG = 1


def _init_worker(parent: int) -> None:
    """Worker initializer: the kernel kills this worker when its parent dies, even by SIGKILL (Linux); its decoders
    keep to one thread (:data:`lawful.threads.WORKER`)."""
    from lawful import threads

    threads.WORKER = True
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


@contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A forking process pool with OpenCV on one thread while it runs (the pool already uses every core).

    Workers die with the process that started them, so a killed run leaves no orphans behind.

    The thread count is set in the parent before the workers fork: changing it inside a forked
    worker can deadlock on the parent's OpenCV thread pool. It is restored afterwards.
    """
    from lawful.threads import opencv_threads

    with opencv_threads(1), ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("fork"),
                                                initializer=_init_worker, initargs=(os.getpid(),)) as pool:
        yield pool
