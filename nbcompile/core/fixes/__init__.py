"""Fixes that prove themselves: proposed changes tried on copies (``suggest``) and the source
rewrites they use."""
