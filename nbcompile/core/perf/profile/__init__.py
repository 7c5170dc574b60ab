"""``profile()``: its run, the record it builds and that record's types."""
