"""The registry of suites by name, below everything that looks a suite up.

Suites register themselves (:func:`register_suite`, used by each ``lawful.suites.<name>`` package);
:func:`get_suite` imports the built-in suite packages by name on first use. Core modules that need a
task (``lawful.case`` checks a case against its task, ``lawful.world.styles`` draws a task's own
scene) call this module, so they never import ``lawful.suites``: dependencies point one way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from lawful.choices import unknown

Suite = Any  # a lawful.suites.base.Suite (not imported: that module sits above this one)

BUILTIN = ("principia", "wmle", "recordings", "applepi", "phyground")
_SUITES: dict[str, Callable[[], Suite]] = {}


def register_suite(name: str):
    """Decorator registering a zero-argument suite factory under ``name``."""

    def deco(factory):
        _SUITES[name] = factory
        return factory

    return deco


def get_suite(name: str) -> Suite:
    """The suite registered as ``name`` (built-in suites are imported on first use)."""
    _load_builtin()
    if name not in _SUITES:
        raise KeyError(unknown(name, _SUITES, "suite"))
    return _SUITES[name]()


def suite_names() -> list[str]:
    _load_builtin()
    return sorted(_SUITES)


def _load_builtin() -> None:
    """Import the built-in suite packages (each registers itself); one whose package is absent is skipped."""
    for mod in BUILTIN:
        try:
            importlib.import_module(f"lawful.suites.{mod}")
        except ModuleNotFoundError as e:
            if e.name != f"lawful.suites.{mod}":
                raise
