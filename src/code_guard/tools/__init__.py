"""Static analysers: each turns files on disk into ``ToolHit`` values for the agents."""
