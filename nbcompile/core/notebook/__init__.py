"""Live notebook targets: the capture session, compiling what a cell defined, and each target's
record."""
