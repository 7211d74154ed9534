"""The secrets analyser: detect-secrets, run in a process of its own."""
