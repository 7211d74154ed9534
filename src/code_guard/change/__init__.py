"""The change under review: the diff, the files rebuilt and fetched from it, their line maps and
scopes, and the workspace the analysers read."""
