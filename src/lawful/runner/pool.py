"""The one way lawful starts worker processes."""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager


@contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A forking process pool with OpenCV on one thread while it runs (the pool already uses every core).

    The thread count is set in the parent before the workers fork: changing it inside a forked
    worker can deadlock on the parent's OpenCV thread pool. It is restored afterwards.
    """
    import cv2

    prev = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("fork")) as pool:
            yield pool
    finally:
        cv2.setNumThreads(prev)
