"""ruff, as the performance and style agents' analyser."""
