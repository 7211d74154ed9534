"""A long-lived Bandit process: one JSON request a line on stdin, one JSON answer a line out.

A request is ``{"cwd": DIR, "paths": [path relative to DIR, ...]}``; the answer is
``{"results": [...], "skipped": [[path, reason], ...]}`` with the fields of Bandit's own JSON
report (``bandit -f json``): its results and the files it skipped (one it cannot parse, or one
that makes it fail, such as an expression nested too deeply for its visitor), or
``{"error": "..."}``. The scan is the command line's: every test, every severity and
confidence, ``--ignore-nosec`` (the agents decide which ``# nosec`` to honour), results sorted
by file name.

It is started by file path as ``python -I bandit/worker.py`` and imports only the standard
library and Bandit, never ``code_guard``: ``-I`` keeps the working directory, PYTHON*
variables and the user's site out of ``sys.path`` and, since Python 3.11, implies ``-P``, so
neither this folder (whose ``bandit.py`` would shadow Bandit) nor the pull request's files
can be imported.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import sys
from typing import Any


def scan(config: Any, cwd: str, paths: list[str]) -> dict[str, Any]:
    """Bandit's results for ``paths``, read from ``cwd``, and the files it skipped, as its
    JSON report lists them."""
    from bandit.core import constants, manager

    os.chdir(cwd)
    try:
        bandit = manager.BanditManager(config, "file", quiet=True, ignore_nosec=True)
        bandit.discover_files(paths)
        bandit.run_tests()
        everything = constants.RANKING[0]  # "UNDEFINED": the command line's default filter
        issues = bandit.get_issue_list(sev_level=everything, conf_level=everything)
        return {
            "results": sorted(
                (i.as_dict(with_code=False) for i in issues), key=lambda r: r["filename"]
            ),
            "skipped": [[str(name), str(reason)] for name, reason in bandit.skipped],
        }
    finally:
        os.chdir("/")  # do not hold the reviewer's temporary folder


def main() -> int:
    """Answer requests until stdin closes."""
    # Bandit logs a line for each file it cannot parse; nobody reads this process's stderr.
    logging.disable(logging.CRITICAL)
    # Importing Bandit makes objects that live as long as the worker, and the cyclic collector
    # walked each of them two or three times as they were made (0.01 s of the 0.08 s a one-line
    # review waits for the worker's first answer): it is paused while Bandit loads, and what
    # was loaded is then frozen out of its sight.
    gc.disable()
    from bandit.core import config as bandit_config

    config = bandit_config.BanditConfig()
    gc.freeze()
    gc.enable()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            answer: dict[str, Any] = scan(
                config, str(request["cwd"]), [str(p) for p in request["paths"]]
            )
        except Exception as exc:  # noqa: BLE001 - every failure is an answer, not a crash
            answer = {"error": f"{type(exc).__name__}: {exc}"[:500]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # Every answer is written and flushed, and nothing else is held: skip the interpreter's
    # teardown of Bandit's modules, which is most of the time the reviewer waits at close.
    os._exit(code)
