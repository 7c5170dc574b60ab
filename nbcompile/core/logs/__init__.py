"""TORCH_TRACE log files: streaming them, indexing a whole run per rank, and where the ranks
differ."""
