"""CUDA graphs (``--mode reduce-overhead``) as one subsystem: see docs/architecture.md."""
