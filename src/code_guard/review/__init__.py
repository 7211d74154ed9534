"""A review from start to end: which files, in which order, within which bounds and exemptions,
the agents' run, and the synthesis of their findings."""
