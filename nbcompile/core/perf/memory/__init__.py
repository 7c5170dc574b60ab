"""Memory measured by the call commands: one call's peak and allocated bytes, each
``compare`` row's, a CUDA-graph row's pool, a profiled call's per kernel and line."""
