"""The engine: knows torch, knows nothing of IPython or HTML. Subsystems from the ground
floor up: ``records``/``frames``, ``trace``, ``logs`` and ``insight``, ``runs``, ``notebook``,
``perf``, ``compiletime``, ``fixes``, ``diagnosis``, ``repro`` (``docs/architecture.md`` maps
every module)."""
