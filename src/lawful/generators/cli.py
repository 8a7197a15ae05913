"""``lawful models``: the model presets, what each paper ran, and whether each can run here."""

from __future__ import annotations

from typing import Optional

import typer


def models(name: Optional[str] = typer.Argument(None, help="A preset to describe in full."),
           as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """List the model presets (the papers' generators): access, native size/fps/frames, and what is missing here."""
    import json

    from rich.table import Table

    from lawful.cli_common import fail, out
    from lawful.generators.presets import PAPERS, presets, status

    table = presets()
    if name is not None and name not in table:
        from lawful.choices import unknown

        fail(unknown(name, table, "preset"))
    chosen = [table[name]] if name else list(table.values())
    rows = []
    for p in chosen:
        ready, why = status(p)
        rows.append((p, ready, why))
    if as_json:
        out.print_json(json.dumps([{"name": p.name, "title": p.title, "access": p.access, "spec": p.spec,
                                    "native": p.native, "papers": p.papers, "ready": ready, "status": why}
                                   for p, ready, why in rows]))
        return
    if name:
        p, ready, why = rows[0]
        out.print(f"[bold]{p.name}[/bold]: {p.title}")
        out.print(f"  access: {p.access}" + (f"  spec: {p.spec}" if p.spec else "") + (f"  key: ${p.env}" if p.env else ""))
        out.print(f"  native: {p.native_text}")
        for suite, setting in p.papers.items():
            out.print(f"  {PAPERS.get(suite, suite)}: {setting}")
        out.print("  here: " + ("[green]ready[/green]" if ready else f"[red]{why}[/red]"))
        return
    t = Table(title="Model presets (lawful run --models NAME; NAME:k=v&... adds options)")
    for col in ("preset", "paper(s)", "access", "native", "status here"):
        t.add_column(col, overflow="fold")
    for p, ready, why in rows:
        papers = ", ".join(PAPERS.get(s, s) for s in p.papers) or "—"
        t.add_row(p.name, papers, p.access, p.native_text, "[green]ready[/green]" if ready else f"[red]{why}[/red]")
    out.print(t)
    n_ready = sum(ready for _, ready, _ in rows)
    out.print(f"{n_ready} of {len(rows)} ready here; closed models are scored from their videos: "
              "--models NAME=folder:DIR")


def register(app: typer.Typer) -> None:
    app.command("models")(models)
