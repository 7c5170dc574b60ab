"""Repros: a target's graph breaks, recompile or crash written as one standalone script
(torch and the standard library), run once in a fresh process to prove it shows the same
fact, with a report beside it."""
