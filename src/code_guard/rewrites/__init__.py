"""Source rewrites that keep every line and column in place, so that what an analyser reports of
the rewritten text is where it is in the original."""
