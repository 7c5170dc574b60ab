"""nbcompile benchmarks: ratios measured side by side in one run (``python -m benchmarks``).

Not unit tests: they take minutes and print a table; docs/project/benchmarks.md records the
figures of one run.
"""
