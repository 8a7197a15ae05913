"""glibc's allocator keeps frame-sized blocks on the heap (lawful.memory): set once, nothing elsewhere."""

import ctypes
import platform

import pytest

from lawful import memory


@pytest.fixture
def fresh():
    memory.frame_sized_heap.cache_clear()
    yield
    memory.frame_sized_heap.cache_clear()


def test_the_thresholds_are_set_once_on_glibc(fresh, monkeypatch):
    calls = []

    class Libc:
        def mallopt(self, what, value):
            calls.append((what, value))
            return 1

        def gnu_get_libc_version(self):
            return b"2.36"

    monkeypatch.setattr(ctypes, "CDLL", lambda name: Libc())
    assert memory.frame_sized_heap() and memory.frame_sized_heap()
    assert calls == [(-3, memory.MMAP_BELOW), (-1, memory.TRIM_ABOVE)]  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, once
    assert memory.MMAP_BELOW <= 32 << 20  # glibc refuses an mmap threshold above half its 64 MB heap


def test_another_c_library_is_left_alone(fresh, monkeypatch):
    class Musl:
        def mallopt(self, what, value):
            raise AssertionError("called")

    monkeypatch.setattr(ctypes, "CDLL", lambda name: Musl())
    assert memory.frame_sized_heap() is False


def test_glibc_here_accepts_them(fresh):
    if platform.system() != "Linux" or not platform.libc_ver()[0] == "glibc":
        pytest.skip("not glibc")
    assert memory.frame_sized_heap() is True
