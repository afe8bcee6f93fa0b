"""Every shipped memory backend and embedder keeps the contract (see memory_contract)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from domain.memory.adapter import MemoryAdapter
from domain.memory.ports import Embedder
from tests.contracts.memory_contract import ADAPTER_CHECKS, EMBEDDER_CHECKS


@pytest.mark.parametrize("check", ADAPTER_CHECKS, ids=lambda c: c.__name__)
def test_the_memory_backend_keeps_the_contract(
    adapter: MemoryAdapter, check: Callable[[MemoryAdapter], None]
) -> None:
    check(adapter)


@pytest.mark.parametrize("check", EMBEDDER_CHECKS, ids=lambda c: c.__name__)
def test_the_embedder_keeps_the_contract(
    embedder: Embedder, check: Callable[[Embedder], None]
) -> None:
    check(embedder)
