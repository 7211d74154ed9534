"""Security regressions: protections a pull request takes away (see docs/regressions.md)."""
