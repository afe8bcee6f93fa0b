"""Choosing a memory backend and an embedder, and refusing one that does not fit.

A process names its memory backend by import path (``VERLETICA_MEMORY_ADAPTER=
pkg.mod:Class``; unset: the SQL backend on the process's own database). The class is
called with the database URL. Before the process uses it, the object is checked against
:class:`~domain.memory.adapter.MemoryAdapter`: every method present, callable, and
taking the protocol's parameters by their names. A backend that falls short is refused
at start-up with what is missing, not at the first read that needs it.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from sqlalchemy import Engine

from adapters.memory.compaction import ExtractiveCompactor
from adapters.memory.sql import SqlMemoryAdapter
from domain.memory.adapter import MemoryAdapter
from domain.memory.compaction import CompactionEngine
from domain.memory.ports import Embedder


class BackendRefused(ValueError):
    """A configured memory backend or embedder does not satisfy its protocol."""


def _methods(protocol: type) -> dict[str, inspect.Signature]:
    out: dict[str, inspect.Signature] = {}
    for name, member in vars(protocol).items():
        if name.startswith("_") or not callable(member):
            continue
        out[name] = inspect.signature(member)
    return out


def _properties(protocol: type) -> list[str]:
    return [n for n, m in vars(protocol).items() if isinstance(m, property)]


def problems(candidate: object, protocol: type) -> list[str]:
    """What ``candidate`` lacks to satisfy ``protocol``: missing or non-callable methods,
    coroutines where the protocol wants plain methods, missing properties, protocol
    parameters a method does not take the way the protocol passes them, and parameters
    of its own that a caller of the protocol would not know to give."""
    found: list[str] = []
    attributes = [*_properties(protocol), *getattr(protocol, "__annotations__", {})]
    for name in attributes:
        if not hasattr(candidate, name):
            found.append(f"no attribute {name!r}")
    for name, wanted in _methods(protocol).items():
        member = getattr(candidate, name, None)
        if member is None:
            found.append(f"no method {name}()")
            continue
        if not callable(member):
            found.append(f"{name} is not callable")
            continue
        expected = getattr(protocol, name)
        if inspect.iscoroutinefunction(member) and not inspect.iscoroutinefunction(expected):
            found.append(f"{name}() is a coroutine; the protocol calls it synchronously")
        if inspect.iscoroutinefunction(expected) and not inspect.iscoroutinefunction(member):
            found.append(f"{name}() is not a coroutine; the protocol awaits it")
        try:
            have = inspect.signature(member)
        except (TypeError, ValueError):
            continue  # a builtin without a signature: trust it
        found += [f"{name}(): {problem}" for problem in _signature_problems(wanted, have)]
    return found


def _signature_problems(wanted: inspect.Signature, have: inspect.Signature) -> list[str]:
    """How ``have`` fails to accept every call ``wanted`` allows."""
    out: list[str] = []
    params = have.parameters
    any_keyword = any(p.kind is p.VAR_KEYWORD for p in params.values())
    any_positional = any(p.kind is p.VAR_POSITIONAL for p in params.values())
    needed = [p for p in list(wanted.parameters.values())[1:] if p.kind not in _VARIADIC]
    for param in needed:
        mine = params.get(param.name)
        if mine is None:
            positional = param.kind is param.POSITIONAL_OR_KEYWORD and any_positional
            if not (any_keyword and (param.kind is param.KEYWORD_ONLY or positional)):
                out.append(f"takes no parameter {param.name!r}")
            continue
        if (
            param.kind is param.POSITIONAL_OR_KEYWORD
            and mine.kind is not mine.POSITIONAL_OR_KEYWORD
        ):
            out.append(f"{param.name!r} must be passable by position and by name")
        if param.kind is param.KEYWORD_ONLY and mine.kind is mine.POSITIONAL_ONLY:
            out.append(f"{param.name!r} must be passable by name")
        if param.default is not param.empty and mine.default is mine.empty:
            out.append(f"{param.name!r} must have a default (callers may leave it out)")
    known = {p.name for p in needed}
    for mine in params.values():
        if mine.name in known or mine.kind in _VARIADIC or mine.default is not mine.empty:
            continue
        out.append(f"requires {mine.name!r}, which the protocol never passes")
    return out


_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def load(spec: str) -> Any:
    """The object named ``pkg.mod:Name``."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise BackendRefused(f"{spec!r} is not an import path of the form pkg.mod:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BackendRefused(f"cannot import {module_name!r} for {spec!r}: {exc}") from exc
    try:
        return getattr(module, attribute)
    except AttributeError as exc:
        raise BackendRefused(f"{module_name!r} has no {attribute!r}") from exc


def checked_adapter(candidate: object, origin: str) -> MemoryAdapter:
    """``candidate`` when it satisfies :class:`MemoryAdapter`; else :class:`BackendRefused`
    naming what it lacks."""
    missing = problems(candidate, MemoryAdapter)
    if missing or not isinstance(candidate, MemoryAdapter):
        detail = "; ".join(missing) or "not a MemoryAdapter"
        raise BackendRefused(f"memory backend {origin} does not satisfy MemoryAdapter: {detail}")
    return candidate


def compaction_engine(spec: str) -> CompactionEngine:
    """The engine ``spec`` names: ``extractive``, or ``pkg.mod:Class`` (called with no
    arguments), refused (:class:`BackendRefused`) when it does not satisfy the port."""
    if spec == "extractive":
        return ExtractiveCompactor()
    candidate = load(spec)()
    missing = problems(candidate, CompactionEngine)
    if missing or not isinstance(candidate, CompactionEngine):
        detail = "; ".join(missing) or "not a CompactionEngine"
        raise BackendRefused(f"compaction engine {spec} does not satisfy the port: {detail}")
    return candidate


def checked_embedder(candidate: object, origin: str) -> Embedder:
    """``candidate`` when it satisfies :class:`Embedder`; else :class:`BackendRefused`.
    (Whether its vectors have the size it states, the contract suite checks.)"""
    missing = problems(candidate, Embedder)
    if missing:
        raise BackendRefused(f"embedder {origin} does not satisfy Embedder: {'; '.join(missing)}")
    assert isinstance(candidate, Embedder)
    return candidate


def memory_adapter(engine: Engine, url: str, spec: str | None = None) -> MemoryAdapter:
    """The memory backend of a process: the SQL backend on ``engine`` by default, or the
    class named by ``spec``, called with ``url``; checked before it is used."""
    if spec is None or not spec.strip():
        return SqlMemoryAdapter(engine)
    factory = load(spec.strip())
    try:
        candidate = factory(url)
    except Exception as exc:
        raise BackendRefused(f"memory backend {spec} failed to start: {exc}") from exc
    return checked_adapter(candidate, spec)
