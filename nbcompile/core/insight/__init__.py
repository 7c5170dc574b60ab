"""What the records mean: advice in words, annotated source, compile diffs, ranked breaks, why
nothing compiled."""
