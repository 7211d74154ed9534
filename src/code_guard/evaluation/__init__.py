"""Eval mode: run the review pipeline over a dataset of cases with known findings, and score it.

One sentence per module:

- ``dataset``: the case file format, validated at the edge, and the listing and sharding of files.
- ``matching``: the one-to-one maximum matching of produced findings to expected ones.
- ``schema``: the pydantic models of ``results.json`` (scores, per-case results, summary).
- ``metrics``: per-case scores, percentiles and the aggregate summary, computed from results.
- ``runner``: reviews each case with the real pipeline, concurrently, timing each review.
- ``results``: ``results.json`` on disk, plus merging shards and re-scoring a stored run.
- ``report``: the markdown report, a pure function of a run (and an optional baseline).
- ``entry``: a whole run from a dataset directory, for the CLI and the GitHub Action.
- ``command``: the ``code-guard eval`` and ``code-guard eval merge`` command lines.
"""

from __future__ import annotations
