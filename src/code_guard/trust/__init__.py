"""The trust boundary: escaping and redaction of text that crosses it, and file access that
never follows a link."""
