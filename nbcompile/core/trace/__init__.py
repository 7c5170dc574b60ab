"""The trace pipeline: torch's structured-trace events (live or from a log line) -> parsed
fields -> one ``CompileRecord`` per frame compile. Knows nothing of notebooks or files."""
