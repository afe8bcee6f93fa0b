"""Composition root: settings → adapters → activities → Temporal worker."""
