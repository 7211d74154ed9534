"""The Bandit analyser: Bandit's security checks, run in a warm worker process."""
