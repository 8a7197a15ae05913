"""Run an iterator ahead of its consumer on a background thread (decoding, which releases the GIL); OpenCV's own
threads while tracking (:func:`opencv_threads`)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_DONE = object()


def _put(q: queue.Queue, item, stop: threading.Event) -> bool:
    """Put ``item``, waiting while ``q`` is full unless ``stop`` is set; False when stopped."""
    while not stop.is_set():
        try:
            q.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


def prefetched(it: Iterator, size: int) -> Iterator:
    """Iterate ``it`` on a daemon thread, up to ``size`` items ahead; its exceptions surface here.

    Closing the returned generator early stops the thread at its next item.
    """
    q: queue.Queue = queue.Queue(maxsize=size)
    stop = threading.Event()

    def work() -> None:
        try:
            for item in it:
                if not _put(q, item, stop):
                    return
            _put(q, _DONE, stop)
        except BaseException as e:  # handed to the consumer
            _put(q, e, stop)
        finally:
            getattr(it, "close", lambda: None)()

    thread = threading.Thread(target=work, name="lawful-prefetch", daemon=True)
    thread.start()

    def consume() -> Iterator:
        try:
            while (item := q.get()) is not _DONE:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            thread.join()

    return consume()


@contextmanager
def opencv_threads(n: int):
    """OpenCV's thread pool set to ``n`` threads inside the block (restored after). Tracking calls OpenCV on
    work-sized images from two threads of its own (decoding, tracking), where the pool's workers only spin
    between calls on the cores those threads need: one thread each cut a 640x360 evaluation's CPU time by 9-12 %
    at the same wall time, and gives the same numbers. Nothing is set where the pool already has ``n`` (a worker of
    :func:`lawful.runner.pool.process_pool`: setting it in a forked worker can deadlock on the parent's pool)."""
    import cv2

    before = cv2.getNumThreads()
    if before == n:
        yield
        return
    cv2.setNumThreads(n)
    try:
        yield
    finally:
        cv2.setNumThreads(before)
