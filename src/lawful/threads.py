"""Run an iterator ahead of its consumer on a background thread (decoding, which releases the GIL); OpenCV's own
threads while tracking (:func:`opencv_threads`)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_DONE = object()
WORKER = False  # True in a worker of lawful.runner.pool.process_pool: every core already has a worker


def prefetched(it: Iterator, size: int) -> Iterator:
    """Iterate ``it`` on a daemon thread, up to ``size`` items ahead; its exceptions surface here.

    Closing the returned generator early stops the thread at its next item. The hand-over is two C queues (items,
    and a token per free place), so the thread runs no Python between its calls beyond its own loop: each time it
    takes the GIL back, the consumer's thread may have to wait for it.
    """
    items, free = queue.SimpleQueue(), queue.SimpleQueue()
    for _ in range(max(1, size)):
        free.put(None)
    stop = threading.Event()

    def room() -> bool:
        """Wait for a free place; False once the consumer stopped."""
        while not stop.is_set():
            try:
                free.get(timeout=0.1)
                return True
            except queue.Empty:
                continue
        return False

    def work() -> None:
        try:
            for item in it:
                if not room():
                    return
                items.put(item)
            items.put(_DONE)
        except BaseException as e:  # handed to the consumer
            items.put(e)
        finally:
            getattr(it, "close", lambda: None)()

    thread = threading.Thread(target=work, name="lawful-prefetch", daemon=True)
    thread.start()

    def consume() -> Iterator:
        try:
            while (item := items.get()) is not _DONE:
                if isinstance(item, BaseException):
                    raise item
                free.put(None)
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
