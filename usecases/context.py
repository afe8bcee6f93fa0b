"""What a use case receives: the ports, the clock, and the few settings that change what
it may do."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from domain.ingress import TokenVerifier
from domain.memory.judge import ScreenJudge
from domain.memory.screen import InjectionScorer
from domain.ports import (
    AuditReader,
    ConfigurationStore,
    Directory,
    Embedder,
    GovernanceStore,
    MemoryBankPort,
    RunGateway,
    RunRecords,
)


@dataclass(frozen=True)
class Ports:
    """The outside world as the use cases see it; built once per process by its
    composition root (the worker, the API, the command line, a test)."""

    directory: Directory
    configuration: ConfigurationStore
    runs: RunRecords
    audit: AuditReader
    governance: GovernanceStore
    gateway: RunGateway
    memory: MemoryBankPort
    embedder: Embedder
    clock: Callable[[], datetime]
    scripted_replies: bool = False
    """Whether a run may carry the exact reply the model returns (the scripted provider)."""
    screen_classifier: InjectionScorer | None = None
    """The ingestion screen's trained layer; None: the rules alone."""
    screen_judge: ScreenJudge | None = None
    """The screen's model layer (when a model provider is configured); None: none."""
    screen_judge_from: float = 0.2
    tokens: TokenVerifier | None = None
    """The configured OIDC issuer's token verifier; None: no issuer is configured."""
    """The classifier score from which the model layer is asked (0: every text)."""
