"""Run an iterator ahead of its consumer on a background thread (decoding, which releases the GIL)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

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
