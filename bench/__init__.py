"""Benchmarks: ``make bench``. Figures are relative to a baseline measured in the same run."""
