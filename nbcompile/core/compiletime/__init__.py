"""Compile time you can cut: where a target's compile seconds go (frames, graphs, phases,
blocks traced again and again, recompiles, cache layers), why a cache missed, and remedies
(regional compilation, nested compile regions, dynamic shapes, portable caches,
precompiled functions) measured on fresh processes."""
