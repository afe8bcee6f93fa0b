"""Temporal workflows: orchestration only, deterministic."""
