"""Each suite's view on the run page: its leaderboard with spreads and counts, a small-multiples chart, and its
own structure (WMLE's C, P, S and the gate; Apple-π's subtracks; PhyGround's laws). Leaderboard cells link to
the suite's case index (``report/<suite>/index.html#c-<column>``)."""

from __future__ import annotations

import math
from collections import defaultdict

from lawful.report.html import esc, fmt, score_cell, slug, table, task_names
from lawful.report.plots import small_multiples


def cases_link(suite: str, col: str | None = None) -> str:
    """From report.html to the suite's case index (at the column's anchor)."""
    return f"report/{slug(suite)}/index.html" + (f"#c-{slug(col)}" if col else "")


def _a(href: str, text: str, title: str = "") -> str:
    return f"<a href='{esc(href)}'" + (f" title='{esc(title)}'" if title else "") + f">{text}</a>"


def _counts(m: dict) -> list[str]:
    return [str(m.get("videos", "–")), f"<span class='ok'>{m.get('scored', 0)}</span>",
            f"<span class='unmeasurable'>{m.get('unmeasurable', 0)}</span>",
            f"<span class='invalid'>{m.get('invalid', 0)}</span>"]


COUNT_HEAD = ["videos", "scored", "unmeasurable", "invalid"]


def generic(suite: str, section: dict) -> str:
    """Mean ± std over cases per column, overall, counts; one panel per model over the columns."""
    models = section.get("models", {})
    cols = task_names(section)
    rows = []
    for name, m in models.items():
        cc = m.get("column_counts") or {}
        cells = []
        for c in cols:
            n = cc.get(c, {})
            bad = n.get("unmeasurable", 0) + n.get("invalid", 0)
            txt = score_cell(m.get("tasks", {}).get(c), m.get("std", {}).get(c), m.get("cases", {}).get(c))
            title = f"{m.get('cases', {}).get(c, '?')} cases; {n.get('unmeasurable', 0)} unmeasurable, " \
                    f"{n.get('invalid', 0)} invalid (count 0)"
            cells.append(_a(cases_link(suite, c), txt + ("*" if bad else ""), title))
        rows.append([f"<th>{esc(name)}</th>", *cells, f"<b>{fmt(m.get('overall'))}</b>", *_counts(m)])
    out = [table(["model", *map(esc, cols), "overall", *COUNT_HEAD], rows)]
    if any(any((n.get("unmeasurable", 0) or n.get("invalid", 0)) for n in (m.get("column_counts") or {}).values())
           for m in models.values()):
        out.append("<p class='muted'>* some of the column's videos were unmeasurable or invalid and count 0; "
                   "the cell links to them.</p>")
    panels = {name: {c: (m.get("tasks", {}).get(c), m.get("std", {}).get(c)) for c in cols}
              for name, m in models.items()}
    out.append(small_multiples(panels, tuple(section.get("scale", (0, 1))), f"{suite}: mean per column "
                               "(error bars: std over cases)"))
    return "\n".join(out)


def _families() -> dict[str, str]:
    """WMLE task label → family ({} when the tasks cannot be listed)."""
    try:
        from lawful.suites.wmle import task_info

        return {lab: i.get("family") or "other" for lab, i in task_info().items()}
    except Exception:
        return {}


def wmle(suite: str, section: dict) -> str:
    """WMLE (and suites sharing its aggregate): overall C, P, S per model; per task C, P, S ± std and the gate;
    per family C, P, S panels with the gate line."""
    from lawful.score.wmle import CONSISTENCY_GATE

    models = section.get("models", {})
    summary = [[f"<th>{esc(n)}</th>", fmt(m.get("overall_C")), fmt(m.get("overall_P")),
                f"<b>{fmt(m.get('overall'))}</b>",
                *[fmt((m.get("by_level") or {}).get(k)) for k in ("E", "M", "H")], *_counts(m)]
               for n, m in models.items()]
    out = [f"<p>S = 0.15·C + 0.85·P̃, P̃ = P only when C ≥ {CONSISTENCY_GATE:g} (the gate), else 0. "
           "Scale 0–100.</p>",
           table(["model", "C", "P", "S", "S easy", "S medium", "S hard", *COUNT_HEAD], summary)]
    labels = sorted({lab for m in models.values() for lab in m.get("tasks", {})},
                    key=lambda s: (int("".join(ch for ch in s if ch.isdigit()) or 10**6), s))
    known = _families()
    fam = {lab: known.get(lab, 'other') for lab in labels}
    head = ["task", "phenomenon", "level"] + [f"{esc(n)} {k}" for n in models for k in ("C", "P", "S")]
    rows = []
    for lab in labels:
        name = next((m.get("names", {}).get(lab) for m in models.values() if m.get("names", {}).get(lab)), "")
        level = next((m.get("levels", {}).get(lab) for m in models.values() if m.get("levels", {}).get(lab)), "")
        cells = []
        for m in models.values():
            s = m.get("tasks", {}).get(lab)
            gate = "" if s is None else (" <span class='ok' title='every video passed the gate'>✓</span>"
                                         if m.get("gate_passed", {}).get(lab) else
                                         " <span class='invalid' title='a video failed the consistency gate'>✗</span>")
            judged = m.get("C_judged", {}).get(lab)
            cells += [fmt(m.get("C", {}).get(lab)) + (f" <span class='muted' title='videos with the judge&#39;s C'>"
                                                      f"J{judged}</span>" if judged else ""),
                      fmt(m.get("P", {}).get(lab)),
                      _a(cases_link(suite, lab), score_cell(s, m.get("std", {}).get(lab))) + gate]
        rows.append([f"<th>{esc(lab)}</th>", f"<td class='l'>{esc((name or '').replace('_', ' '))}</td>",
                     esc(level or ""), *cells])
    out.append(f"<details open><summary>per task: C, P, S ± std over videos; ✓/✗ the gate "
               f"({len(labels)} tasks)</summary>{table(head, rows)}</details>")
    fams = list(dict.fromkeys(fam[lab] for lab in labels))
    frows = []
    panels = {}
    for n, m in models.items():
        panels[n] = {}
        for f in fams:
            labs = [lab for lab in labels if fam[lab] == f and m.get("tasks", {}).get(lab) is not None]
            c, p = (_mean([m.get(k, {}).get(lab) for lab in labs]) for k in ("C", "P"))
            s = (m.get("families") or {}).get(f, _mean([m["tasks"][lab] for lab in labs]))
            panels[n][f] = (c, p, s)
    for f in fams:
        frows.append([f"<th>{esc(f)}</th>"] + [" / ".join(fmt(v) for v in panels[n][f]) for n in models])
    out.append(table(["family", *[f"{esc(n)} C / P / S" for n in models]], frows))
    out.append(small_multiples(panels, (0, 100), f"{suite}: C, P and S per family (dashed: the gate on C, "
                               f"{CONSISTENCY_GATE:g})", ref=CONSISTENCY_GATE, series=("C", "P", "S")))
    return "\n".join(out)


def _mean(v) -> float | None:
    v = [x for x in v if isinstance(x, (int, float)) and math.isfinite(x)]
    return sum(v) / len(v) if v else None


def applepi(suite: str, section: dict) -> str:
    """Apple-π: per model overall, each subtrack (mean ± std over cases), pillars; per task; one panel per model."""
    models = section.get("models", {})
    first = next(iter(models.values()), {})
    subs = list(dict.fromkeys(s for m in models.values() for s in m.get("subtracks", {})))
    pillars = list(dict.fromkeys(p for m in models.values() for p in m.get("pillars", {})))
    rows = []
    for n, m in models.items():
        sd = m.get("subtracks_std", {})
        rows.append([f"<th>{esc(n)}</th>", f"<b>{fmt(m.get('overall'))}</b>",
                     *[_a(cases_link(suite, s), score_cell(m["subtracks"].get(s), sd.get(s))) for s in subs],
                     *_counts(m)])
    out = [f"<p>Scoring: {esc(first.get('scoring', ''))}. Scale 0–1.</p>",
           table(["model", "overall", *[esc(s.replace("_objective", "").replace("_", " ")) for s in subs],
                  *COUNT_HEAD], rows)]
    tasks = list(dict.fromkeys(t for m in models.values() for t in m.get("tasks", {})))
    out.append("<div class='frames'>" + table(["task", *map(esc, models)], [
        [f"<th>{esc(t)}</th>", *[fmt(m.get("tasks", {}).get(t)) for m in models.values()]] for t in tasks])
        + table(["pillar", *map(esc, models)], [
            [f"<th>{esc(p)}</th>", *[fmt(m.get("pillars", {}).get(p)) for m in models.values()]] for p in pillars])
        + "</div>")
    panels = {n: {s.replace("_objective", ""): (m["subtracks"].get(s), m.get("subtracks_std", {}).get(s))
                  for s in subs} for n, m in models.items()}
    out.append(small_multiples(panels, (0, 1), f"{suite}: per subtrack (error bars: std over cases)"))
    return "\n".join(out)


def phyground(suite: str, section: dict) -> str:
    """PhyGround: general, physics and overall per model; the judge's mean per law (instances); per-law panels."""
    if section.get("status"):
        return (f"<p class='reason'>{esc(section.get('status'))}: {esc(section.get('reason', ''))}</p>"
                f"<p>videos made: {esc(section.get('videos', {}))}; cases: {esc(section.get('cases', '–'))}</p>")
    from lawful.suites.phyground.taxonomy import LAW_DOMAIN

    models = section.get("models", {})
    rows = [[f"<th>{esc(n)}</th>", fmt(m.get("general")), fmt(m.get("physics")), f"<b>{fmt(m.get('overall'))}</b>",
             esc(", ".join(f"{k} {v}" for k, v in (m.get("unscored") or {}).items()) or "0")]
            for n, m in models.items()]
    out = ["<p>Judged on 1–5: overall = ½ general + ½ physics (sample-weighted over (case, law) instances).</p>",
           table(["model", "general", "physics", "overall", "unscored answers"], rows)]
    dims = list(dict.fromkeys(d for m in models.values() for d in m.get("dimensions", {})))
    laws = list(dict.fromkeys(k for m in models.values() for k in m.get("laws", {})))
    lrows = []
    for k in dims + laws:
        cells = []
        for m in models.values():
            v = m.get("dimensions", {}).get(k, m.get("laws", {}).get(k))
            n = (m.get("instances") or {}).get("laws", {}).get(k)
            cells.append(_a(cases_link(suite, k), fmt(v) + (f" <span class='muted'>({n})</span>" if n else "")))
        kind = "general" if k in dims else LAW_DOMAIN.get(k, "")
        lrows.append([f"<th>{esc(k)}</th>", f"<td class='l'>{esc(kind)}</td>", *cells])
    out.append(table(["dimension / law", "domain", *map(esc, models)], lrows))
    panels = {n: {k: (m.get("dimensions", {}).get(k, m.get("laws", {}).get(k)),) for k in dims + laws}
              for n, m in models.items()}
    out.append(small_multiples(panels, (1, 5), f"{suite}: judge's mean per dimension and law"))
    return "\n".join(out)


def judge_vs_measurement(section: dict, judgements: list[dict]) -> str:
    """Where a judge scored the same columns the measurement did: both means side by side per model."""
    acc: dict = defaultdict(lambda: defaultdict(list))
    bad: dict = defaultdict(lambda: defaultdict(int))
    for j in judgements:
        key = (j["model"], j["rubric"], j["criterion"])
        if j["status"] == "scored" and j["value"] is not None:
            acc[key[0]][key[1:]].append(float(j["value"]))
        else:
            bad[key[0]][key[1:]] += 1
    if not acc and not bad:
        return ""
    rows = []
    for model in sorted(set(acc) | set(bad)):
        m = section.get("models", {}).get(model, {})
        for rubric, crit in sorted(set(acc[model]) | set(bad[model])):
            v = acc[model][(rubric, crit)]
            measured = m.get("tasks", {}).get(crit)
            rows.append([f"<th>{esc(model)}</th>", f"<td class='l'>{esc(rubric)}</td>",
                         f"<td class='l'>{esc(crit)}</td>", fmt(measured),
                         fmt(sum(v) / len(v) if v else None), str(len(v)), str(bad[model][(rubric, crit)])])
    return ("<h3>measurement and judge side by side</h3>"
            + table(["model", "rubric", "criterion", "measured mean", "judge mean", "judged", "unscored"], rows))


def view(suite: str, section: dict) -> str:
    """The suite's view, chosen by the shape of its section."""
    models = section.get("models", {})
    if suite == "phyground" or ("columns" in section and any("laws" in m for m in models.values())):
        return phyground(suite, section)
    if any("subtracks" in m for m in models.values()):
        return applepi(suite, section)
    if any("gate_passed" in m for m in models.values()):
        return wmle(suite, section)
    return generic(suite, section)

