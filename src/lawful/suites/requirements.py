"""What a case must hold for each task of a suite: object ids, ``known`` parameters, the events it looks for.

One source for ``lawful schema --suite NAME`` and the tables of docs/case-format.md (a test keeps them equal),
read from the task classes themselves (``required_objects`` / ``object_ids``, ``required_known``,
``required_events``), the same declarations :meth:`lawful.suites.base.Task.case_problem` checks at load.
"""

from __future__ import annotations

from lawful.suites.base import get_suite


def task_requirements(suite: str) -> dict[str, dict]:
    """``{task name: {"label", "objects", "known", "events"}}`` for every per-video task of ``suite``, in suite order.

    ``objects``: required object ids (empty: every object of the case); ``known``: required ``case.known``
    keys with what each means; ``optional``: keys read when present; ``per_object``: keys each of those
    objects states in its own ``known``; ``events``: events the task must find (WMLE-style consistency).
    """
    s = get_suite(suite)
    out = {}
    for name, t in s.tasks.items():
        objects = tuple(getattr(t, "required_objects", ()) or getattr(t, "object_ids", ()))
        out[name] = {"label": t.label or name, "objects": list(objects),
                     "known": dict(getattr(t, "required_known", {}) or {}),
                     "optional": dict(getattr(t, "optional_known", {}) or {}),
                     "per_object": dict(getattr(t, "object_known", {}) or {}),
                     "events": list(getattr(t, "required_events", ()) or ())}
    return out


def markdown_table(suite: str) -> str:
    """The requirements of ``suite``'s tasks as a Markdown table (task, object ids, ``known`` keys, events)."""
    rows = ["| task | object ids | required `known` | optional `known` | events |", "|---|---|---|---|---|"]
    for name, r in task_requirements(suite).items():
        label = f"{r['label']} `{name}`" if r["label"] != name else f"`{name}`"
        objs = ", ".join(f"`{o}`" for o in r["objects"]) or "any"
        known = "; ".join([*(f"`{k}`: {v}" for k, v in r["known"].items()),
                           *(f"each object's `{k}`: {v}" for k, v in r["per_object"].items())]) or "none"
        optional = "; ".join(f"`{k}`: {v}" for k, v in r["optional"].items()) or "none"
        events = ", ".join(r["events"]) or "none"
        rows.append(f"| {label} | {objs} | {known} | {optional} | {events} |")
    return "\n".join(rows)


if __name__ == "__main__":  # python -m lawful.suites.requirements wmle  → the table for docs/case-format.md
    import sys

    print(markdown_table(sys.argv[1] if len(sys.argv) > 1 else "wmle"))
