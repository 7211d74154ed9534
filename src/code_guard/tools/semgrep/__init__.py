"""The Semgrep analyser: semgrep-core with the bundled rules (``rules/*.yml``)."""
