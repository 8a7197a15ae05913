"""Optional VLM judges behind one client, with rubrics as data.

- :mod:`~lawful.judges.client` — OpenAI-compatible chat-completions over ``urllib``: images as data
  URLs, temperature 0, bounded concurrency, retries with backoff inside a per-call deadline, the
  API key read from an environment variable whose *name* is configured, usage accounting.
- :mod:`~lawful.judges.frames` — frames by physical time at a rate, capped, shrunk, encoded.
- :mod:`~lawful.judges.cache` — replies on disk keyed by (judge model, rubric version, prompt,
  image hashes): a re-run sends nothing.
- :mod:`~lawful.judges.rubric` and ``rubrics/*.json`` — versioned rubric files (criteria, scale,
  anchors, sub-questions, group weights, output schema, prompt template) and their fusion.
- :mod:`~lawful.judges.parse` — tolerant JSON extraction; off-scale or unparseable answers are
  ``invalid`` with the raw reply kept, never guessed.
- :mod:`~lawful.judges.judge` — run a rubric over a run folder into its store;
  ``judge_consistency`` gives WMLE's C.
- :mod:`~lawful.judges.agreement` — judge meta-evaluation (Pearson/Spearman cross-check, relative
  bias, A_φ, A_rank, confirmed pairwise agreement).
- :mod:`~lawful.judges.sft` — PhyGround-style fine-tuning export; :mod:`~lawful.judges.plan` —
  calls/images/tokens before sending; :mod:`~lawful.judges.cli` — the commands.
"""
