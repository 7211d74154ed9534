"""Source rewrites that keep every line and column in place, so that what an analyser reports of
the rewritten text is where it is in the original: the one parse per source (``python_parse``),
the edits (``edits``), constant folding and the pruning of what cannot run (``folding/``), and the
Semgrep focus and syntax rewrites (``focus``, ``syntax``)."""
