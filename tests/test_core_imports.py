"""The package's import graph: no cycles (lazy, function-level imports included), and the lower layers
never import the suites (suites use judges, perceive, world and score; never the reverse)."""

import ast
from functools import lru_cache
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

import lawful

SRC = Path(lawful.__file__).resolve().parent.parent


def _modules() -> dict[str, Path]:
    out = {}
    for p in (SRC / "lawful").rglob("*.py"):
        parts = list(p.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


@lru_cache(maxsize=1)
def _graph() -> dict[str, set[str]]:
    """Module → the package modules it imports anywhere in its body (``if TYPE_CHECKING`` blocks too)."""
    mods = _modules()

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    g: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rpartition(".")[0]
        for n in ast.walk(ast.parse(p.read_text())):
            names = []
            if isinstance(n, ast.Import):
                names = [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                base = n.module or ""
                if n.level:
                    b = pkg.split(".")[: len(pkg.split(".")) - (n.level - 1)]
                    base = ".".join(b + ([base] if base else []))
                names = [f"{base}.{a.name}" for a in n.names]
            for name in names:
                t = resolve(name)
                if t and t != m:
                    g[m].add(t)
    return g


def test_no_import_cycles():
    g = _graph()
    try:
        tuple(TopologicalSorter(g).static_order())
    except CycleError as e:
        pytest.fail(f"import cycle: {' -> '.join(e.args[1])}")


def test_a_cycle_is_found():
    """The check itself: a two-module loop is reported."""
    with pytest.raises(CycleError):
        tuple(TopologicalSorter({"a": {"b"}, "b": {"a"}}).static_order())


# Known exceptions still to move, each listed so the check stays strict elsewhere and shrinks as they go.
SUITE_IMPORTS_PENDING: set[str] = set()  # "module -> lawful.suites..." kept while a move is under way


def _suite_imports(layer: str) -> set[str]:
    return {f"{m} -> {t}" for m, deps in _graph().items() if m == layer or m.startswith(layer + ".")
            for t in deps if t == "lawful.suites" or t.startswith("lawful.suites.")}


@pytest.mark.parametrize("layer", ["lawful.case", "lawful.suite_registry", "lawful.world", "lawful.perceive",
                                   "lawful.judges"])
def test_lower_layers_do_not_import_suites(layer):
    bad = sorted(_suite_imports(layer) - SUITE_IMPORTS_PENDING)
    assert not bad, bad


def test_pending_exceptions_are_still_real():
    """An exception that no longer happens leaves the list (so the list never hides a new import)."""
    gone = sorted(SUITE_IMPORTS_PENDING - _suite_imports("lawful"))
    assert not gone, gone


SHARED_SUITE_MODULES = ("base", "cli", "windows", "requirements")  # lawful.suites.<these>: every suite's
SUITE_FAMILY = {"recordings": "wmle"}  # real recordings are scored as WMLE cases with WMLE's metrics


def _cross_suite_imports() -> set[str]:
    """``suites.<a>... -> suites.<b>...`` with a ≠ b: one suite's modules are not another's (the shared
    modules above are everyone's)."""
    def owner(m: str) -> str | None:
        parts = m.split(".")
        if len(parts) < 3 or parts[:2] != ["lawful", "suites"] or parts[2] in SHARED_SUITE_MODULES:
            return None
        return SUITE_FAMILY.get(parts[2], parts[2])

    return {f"{m} -> {t}" for m, deps in _graph().items() if owner(m) for t in deps
            if owner(t) and owner(t) != owner(m)}


def test_suites_do_not_import_each_other():
    """Shared pieces live below the suites (world, perceive, score), not in another suite's module."""
    bad = sorted(_cross_suite_imports())
    assert not bad, bad
