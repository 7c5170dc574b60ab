"""Targets: what a ``%%compile`` cell compiles, each target's state, options and calls."""
