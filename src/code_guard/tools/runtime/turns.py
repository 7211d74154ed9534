"""The analysers that work in the reviewer's own interpreter take turns.

The Python checkers, the in-process secrets scan and the access-control tool are CPU-bound
pure Python: under the interpreter lock, two of them side by side take as long as one after
the other. Side by side, though, they leave a smaller share of the lock to the threads that
only prepare an analyser process's input (Semgrep's rewritten copies, Bandit's request) and
then wait on it: every busy thread takes its turn at the lock, and semgrep-core, the
analyser that ends last, started later the more of them there were. Taking turns here, one
in-process analysis at a time, leaves those threads one rival at most.

``TURN`` is held only around work that waits on no other thread (a parse, a fold, a scan),
never around a wait on a shared run (``RunCache``) or on a process: a thread holding it
never waits for one that needs it, so the turns cannot deadlock.
"""

from __future__ import annotations

import threading

TURN = threading.Lock()
