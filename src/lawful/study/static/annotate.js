"use strict";
// Annotator page: one assignment at a time; every click is saved, behaviour is logged in batches.
(() => {
  const $ = (id) => document.getElementById(id);
  const SCORES = ["1", "2", "3", "4", "5"];
  let current = null, answers = {}, watch = 0, queue = [], counter = 0, flushing = null;
  const lastT = {};

  async function api(method, url, body) {
    const opts = { method, credentials: "same-origin", headers: {} };
    if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
    const r = await fetch(url, opts);
    if (!r.ok) {
      let detail = r.statusText;
      try { detail = (await r.json()).detail || detail; } catch (e) { /* not JSON */ }
      const err = new Error(detail); err.status = r.status; throw err;
    }
    return r.json();
  }

  function message(text) { const m = $("message"); m.textContent = text; m.hidden = !text; }
  function status(text) { $("status").textContent = text; }

  function push(kind, t) {
    queue.push({ seq: Date.now() * 100 + (counter++ % 100), kind, t: t === undefined ? null : t, client_ms: Date.now() });
  }

  async function flush() {
    if (!current || !queue.length) return;
    if (flushing) return flushing;
    const id = current.id, batch = queue.splice(0);
    flushing = api("POST", `/api/assignments/${id}/events`, { events: batch })
      .catch(() => { queue = batch.concat(queue); })  // resent later with the same sequence numbers
      .finally(() => { flushing = null; });
    return flushing;
  }

  function required() {
    if (current.kind === "pair") return ["preference"];
    const keys = current.questions.map((q) => q.key);
    if (current.attention !== null && current.attention !== undefined) keys.push("_attention");
    return keys;
  }

  function update() {
    const all = required().every((k) => answers[k] !== undefined);
    const need = current.min_watch_s || 0;
    const watched = watch >= need;
    const note = $("watch-note");
    note.hidden = watched || !need;
    note.textContent = `Please watch at least ${need} s of the clip before submitting (${watch.toFixed(1)} s so far).`;
    $("submit").disabled = !(all && watched);
    document.querySelectorAll("tr.question").forEach((tr) => tr.classList.toggle("answered", answers[tr.dataset.key] !== undefined));
  }

  async function save() {
    status("saving…");
    try {
      await api("PUT", `/api/assignments/${current.id}/answers`, { answers, watch_s: watch });
      status("saved");
    } catch (e) { status(""); message("Could not save your answer (" + e.message + "); it will be sent again."); }
  }

  function hook(video, slot) {
    video.addEventListener("play", () => { push("play", video.currentTime); flush(); });
    video.addEventListener("pause", () => { if (!video.ended) push("pause", video.currentTime); });
    video.addEventListener("seeked", () => { push("seek", video.currentTime); lastT[slot] = video.currentTime; });
    video.addEventListener("ended", () => { push("ended", video.currentTime); flush(); save(); });
    video.addEventListener("timeupdate", () => {
      const t = video.currentTime, prev = lastT[slot];
      if (!video.paused && prev !== undefined && t > prev && t - prev <= 1.5) { watch += t - prev; update(); }
      lastT[slot] = t;
    });
  }

  function row(key, title, text, choices, labels, extra) {
    const tr = document.createElement("tr");
    tr.className = "question"; tr.dataset.key = key;
    const th = document.createElement("th");
    const strong = document.createElement("strong"); strong.textContent = title; th.appendChild(strong);
    th.appendChild(document.createTextNode(text));
    if (extra && extra.length) {
      const ul = document.createElement("ul"); ul.className = "sub";
      extra.forEach((s) => { const li = document.createElement("li"); li.textContent = s; ul.appendChild(li); });
      th.appendChild(ul);
    }
    tr.appendChild(th);
    choices.forEach((v, i) => {
      const td = document.createElement("td"); td.className = "choice";
      const input = document.createElement("input");
      input.type = "radio"; input.name = key; input.value = v; input.id = `q-${key}-${v}`;
      input.setAttribute("aria-label", `${title}: ${labels[i]}`);
      input.checked = answers[key] === v;
      input.addEventListener("change", () => { answers[key] = v; update(); save(); });
      td.appendChild(input); tr.appendChild(td);
    });
    return tr;
  }

  function header(labels, tips) {
    const tr = document.createElement("tr");
    ["Question", ...labels].forEach((l, i) => {
      const th = document.createElement("th"); th.textContent = l;
      if (i && tips) th.title = tips[i - 1] || "";
      tr.appendChild(th);
    });
    return tr;
  }

  function render(a) {
    current = a; answers = Object.assign({}, a.answers); watch = a.watch_s || 0;
    Object.keys(lastT).forEach((k) => delete lastT[k]);
    $("prompt").textContent = a.prompt;
    const vids = $("videos"); vids.replaceChildren();
    a.videos.forEach((src, i) => {
      const fig = document.createElement("figure");
      const v = document.createElement("video");
      v.controls = true; v.preload = "auto"; v.muted = true; v.playsInline = true; v.src = src; v.id = `video-${i}`;
      hook(v, i); fig.appendChild(v);
      if (a.videos.length > 1) {
        const cap = document.createElement("figcaption"); cap.textContent = i ? "Clip B" : "Clip A"; fig.appendChild(cap);
      }
      vids.appendChild(fig);
    });
    const table = document.createElement("table"); table.id = "answers";
    if (a.kind === "pair") {
      const labels = ["Clip A", "Clip B", "About the same"];
      table.appendChild(header(labels));
      table.appendChild(row("preference", "Which is more physical?", " " + a.question, ["A", "B", "tie"], labels));
    } else {
      const tips = SCORES.map((s) => (a.anchors && a.anchors.law && a.anchors.law[s]) || "");
      table.appendChild(header(SCORES.map((s) => s + (s === "1" ? " (worst)" : s === "5" ? " (best)" : "")), tips));
      const rows = a.questions.map((q) => row(q.key, q.name, " " + q.question, SCORES, SCORES, q.sub_questions));
      if (a.attention !== null && a.attention !== undefined) {
        const check = row("_attention", "Attention check", ` To show you are reading, choose ${a.attention} in this row.`, SCORES, SCORES);
        rows.splice(a.id % (rows.length + 1), 0, check);
      }
      rows.forEach((r) => table.appendChild(r));
    }
    $("questions").replaceChildren(table);
    $("task").hidden = false; $("finished").hidden = true;
    status(""); update();
  }

  async function load() {
    let t;
    try { t = await api("GET", "/api/task"); } catch (e) {
      $("task").hidden = true;
      message(e.status === 401 ? "Please sign in with the personal link you were given." : "Could not load your task: " + e.message);
      return;
    }
    message("");
    $("progress").textContent = `${t.done} of ${t.total} done`;
    if (!t.assignment) { current = null; $("task").hidden = true; $("finished").hidden = false; return; }
    render(t.assignment);
    push("open");
  }

  $("submit").addEventListener("click", async () => {
    $("submit").disabled = true; status("submitting…");
    await flush();
    try {
      await api("POST", `/api/assignments/${current.id}/submit`, { answers, watch_s: watch });
      await load();
    } catch (e) { message("Could not submit (" + e.message + "); please try again."); update(); }
  });

  setInterval(flush, 2000);
  window.addEventListener("pagehide", () => {
    if (!current) return;
    if (queue.length) {
      navigator.sendBeacon(`/api/assignments/${current.id}/events`,
        new Blob([JSON.stringify({ events: queue.splice(0) })], { type: "application/json" }));
    }
    fetch(`/api/assignments/${current.id}/answers`, { method: "PUT", keepalive: true, credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ answers, watch_s: watch }) });
  });
  load();
})();
