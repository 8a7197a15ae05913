"use strict";
// Admin page: progress, quality control and the report (all through the admin API).
(() => {
  const $ = (id) => document.getElementById(id);
  const fmt = (v, nd = 3) => (v === null || v === undefined ? "—" : typeof v === "number" ? v.toFixed(nd) : String(v));

  async function api(method, url) {
    const r = await fetch(url, { method, credentials: "same-origin" });
    if (!r.ok) { const err = new Error(r.status === 401 ? "admin sign-in required" : r.statusText); err.status = r.status; throw err; }
    return r.json();
  }

  function table(id, head, rows) {
    const t = $(id); t.replaceChildren();
    const tr = document.createElement("tr");
    head.forEach((h) => { const th = document.createElement("th"); th.textContent = h; tr.appendChild(th); });
    t.appendChild(tr);
    rows.forEach((r) => {
      const row = document.createElement("tr");
      r.forEach((c) => { const td = document.createElement("td"); td.textContent = c; row.appendChild(td); });
      t.appendChild(row);
    });
  }

  function fail(e) { const m = $("message"); m.hidden = false;
    m.textContent = e.status === 401 ? "Sign in with /admin/login/<admin token> (the token is in the study folder)." : "Error: " + e.message; }

  async function progress() {
    const p = await api("GET", "/api/admin/progress");
    $("progress-summary").textContent = `${p.done} of ${p.total} assignments submitted`;
    table("progress-table", ["annotator", "done", "assigned"], p.annotators.map((a) => [a.name, a.done, a.total]));
  }

  $("run-qc").addEventListener("click", async () => {
    try {
      const q = await api("POST", "/api/admin/qc");
      $("qc-section").hidden = false;
      $("qc-summary").textContent = `${q.submissions} submissions, ${q.annotators} annotators: kept ${q.kept}, removed ${q.removed.length}`;
      table("qc-table", ["annotator", "removed", "reasons", "flags", "std", "copy-paste", "peer MAE"],
        Object.entries(q.details).map(([a, d]) => [a, d.remove ? "yes" : "no", d.reasons.join("; "), d.flags.join(", "),
          fmt(d.std, 2), fmt(d.copy_paste_rate, 2), fmt(d.peer_mae, 2)]));
    } catch (e) { fail(e); }
  });

  $("run-report").addEventListener("click", async () => {
    try {
      const r = await api("GET", "/api/admin/report");
      $("report-section").hidden = false;
      table("scores-table", ["model", "general", "physics", "overall"],
        Object.entries(r.human.models).map(([m, s]) => [m, fmt(s.general, 2), fmt(s.physics, 2), fmt(s.overall, 2)]));
      table("reliability-table", ["view", "Spearman ρ", "interval", "Kendall τ-b", "splits"],
        Object.entries(r.reliability).map(([v, s]) => [v, fmt(s.spearman.mean), (s.spearman.interval || []).map((x) => fmt(x)).join(" – "),
          fmt(s.kendall_tau_b.mean), s.splits]));
      const a = r.agreement;
      $("agreement").textContent = `Krippendorff α (interval): all ${fmt(a.alpha_all)}, general ${fmt(a.alpha_general)}, ` +
        `physics ${fmt(a.alpha_physics)} over ${a.units} units; pairwise agreement ${fmt(a.pairwise_percent_agreement)}`;
      table("pairs-table", ["model A", "model B", "votes", "A preferred", "B preferred", "tie"],
        r.preferences.map((p) => [p.model_a, p.model_b, p.votes, fmt(p.prefer_a), fmt(p.prefer_b), fmt(p.tie)]));
      table("judges-table", ["judge", "overall r (models)", "item r", "relative bias", "rank accuracy", "pairwise accuracy"],
        Object.entries(r.judges).map(([j, s]) => [j, fmt(s.per_model.overall.pearson), fmt(s.per_item.pearson),
          fmt(s.relative_bias.aggregate), fmt(s.rank_accuracy.A_rank), fmt(s.pairwise_accuracy.A_pair_conf)]));
    } catch (e) { fail(e); }
  });

  progress().catch(fail);
})();
