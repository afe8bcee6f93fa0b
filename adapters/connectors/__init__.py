"""Connectors: the outside world that agents may change, reachable only through the
broker's dispatch path (an import-linter contract enforces it)."""
