"""nbcompile benchmarks: ratios measured side by side in one run (``python -m benchmarks``).

Not unit tests: they take minutes and print a table; README "Benchmarks" records the
figures of one run.
"""
