"""A model provider named by import path (``VERLETICA_MODEL_PROVIDER=pkg.mod:Class``),
refused at start-up when it does not satisfy the port, as a memory backend is."""

from __future__ import annotations

from adapters.memory.backends import BackendRefused, load, problems
from domain.model_provider import ModelProvider


def model_provider(spec: str) -> ModelProvider:
    """The provider ``spec`` names (its class called with no arguments: it reads its own
    configuration), or :class:`BackendRefused` saying what it lacks of
    :class:`~domain.model_provider.ModelProvider` (a ``name``, an ``async generate``
    taking the request)."""
    candidate = load(spec)()
    missing = problems(candidate, ModelProvider)
    if missing:
        said = "; ".join(missing)
        raise BackendRefused(f"model provider {spec} does not satisfy the port: {said}")
    name = getattr(candidate, "name", None)
    if not isinstance(name, str) or not name:
        raise BackendRefused(f"model provider {spec} has no name (a short word, say 'mine')")
    return candidate  # type: ignore[no-any-return]
