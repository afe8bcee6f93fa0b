"""Temporal, seen from the use cases: where runs execute."""
