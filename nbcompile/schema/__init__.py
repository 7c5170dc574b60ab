"""The record JSON Schema, generated from the record dataclasses (``generate.py``)."""
