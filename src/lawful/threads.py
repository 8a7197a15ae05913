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

    Closing the returned iterator stops the thread at its next item, also before the first item was asked for (a
    caller that turns a video down on its header); dropping it lets the thread end there too. The hand-over is two
    C queues (items, and a token per free place), so the thread runs no Python between its calls beyond its own loop:
    each time it takes the GIL back, the consumer's thread may have to wait for it.
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
    return _Ahead(items, free, stop, thread)


class _Ahead:
    """The consumer's side of :func:`prefetched`. A generator's ``finally`` never runs if it is closed before its
    first item, and the thread it should stop was left waiting for room with the decoder open: at the interpreter's
    exit, such a thread is torn down inside FFmpeg or OpenCV and the process aborts ("terminate called without an
    active exception")."""

    def __init__(self, items: queue.SimpleQueue, free: queue.SimpleQueue, stop: threading.Event,
                 thread: threading.Thread):
        self._items, self._free, self._stop, self._thread = items, free, stop, thread

    def __iter__(self) -> "_Ahead":
        return self

    def __next__(self):
        if self._stop.is_set():
            raise StopIteration
        item = self._items.get()
        if item is _DONE:
            self.close()
            raise StopIteration
        if isinstance(item, BaseException):
            self.close()
            raise item
        self._free.put(None)
        return item

    def close(self) -> None:
        """Stop the thread and wait for it (it closes the iterator it reads)."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()

    def __del__(self) -> None:
        self._stop.set()  # (no waiting here: the thread ends at its next item)


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
