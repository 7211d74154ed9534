"""Process runtime shared by the analysers: warm worker pools and batching by core."""
