"""Measurement: timing comparisons and their verdict, profiles, explanations (runs on copies
in ``runs/``'s sandbox)."""
