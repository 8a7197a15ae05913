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


@pytest.mark.parametrize("layer", ["lawful.case", "lawful.suite_registry", "lawful.world.styles",
                                   "lawful.world.styled", "lawful.world.scenes", "lawful.perceive",
                                   "lawful.judges"])
def test_lower_layers_do_not_import_suites(layer):
    g = _graph()
    bad = sorted(f"{m} -> {t}" for m, deps in g.items() if m == layer or m.startswith(layer + ".")
                 for t in deps if t == "lawful.suites" or t.startswith("lawful.suites."))
    assert not bad, bad
