"""Measurement: the sandbox that runs copies, timing comparisons and their verdict, profiles,
explanations."""
