"""Temporal activities: thin classes over ports that call domain logic."""
