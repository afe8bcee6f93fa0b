"""The composition root: build adapters from settings, activities from adapters."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

from activities.agent_run import AgentRunActivities
from activities.broker import BrokerActivities
from adapters.connectors.email import EmailOutbox
from adapters.connectors.payments import PaymentsLedger
from adapters.models.gemini import GeminiProvider
from adapters.models.replay import CapturingProvider, ReplayProvider
from adapters.models.scripted import ScriptedProvider
from adapters.store.store import Store
from domain.ports import Connector, ModelProvider
from worker.clock import utc_now
from worker.settings import Settings
from workflows.agent_run import AgentRunWorkflow


class BrokenChain(RuntimeError):
    """A worker refuses to start its broker on a broken audit chain."""


def build_model(settings: Settings) -> ModelProvider:
    """The model provider the settings name."""
    provider = settings.resolved_provider
    if provider == "replay":
        return ReplayProvider()
    if provider == "scripted":
        return ScriptedProvider()
    assert settings.gemini_api_key is not None
    gemini = GeminiProvider(
        settings.gemini_api_key.get_secret_value(), settings.gemini_model, settings.gemini_base_url
    )
    if provider == "capture":
        return CapturingProvider(gemini, Path(settings.capture_path))
    return gemini


def build_connectors(
    store: Store, clock: Callable[[], datetime]
) -> dict[tuple[str, str], Connector]:
    """Connectors registered by (system, action)."""
    connectors: list[Connector] = [
        PaymentsLedger(store.db, clock, store.keys),
        EmailOutbox(store.db, clock, store.keys),
    ]
    return {(c.system, action): c for c in connectors for action in c.actions}


def verify_chains(store: Store) -> None:
    """Verify every organization's chain; raise :class:`BrokenChain` on the first break."""
    for org_id, result in store.audit.verify_all().items():
        if not result.ok:
            hint = (
                " (if the audit key changed, give the key that signed it as "
                "VERLETICA_AUDIT_KEY or in VERLETICA_AUDIT_RETIRED_KEYS)"
                if "signature" in (result.problem or "")
                else ""
            )
            raise BrokenChain(
                f"audit chain of org {org_id} is broken at entry {result.broken_at}: "
                f"{result.problem}{hint}"
            )


def build_worker(
    client: Client,
    settings: Settings,
    store: Store,
    *,
    model: ModelProvider | None = None,
    clock: Callable[[], datetime] = utc_now,
    replace: Mapping[str, Callable[..., Any]] | None = None,
) -> Worker:
    """A worker for the agent-run workflow; refuses to start on a broken audit chain.

    ``replace`` swaps activities by activity name (tests stand in for the outside world,
    e.g. ``{"dispatch": failing_dispatch}``); every other activity is the real one.
    """
    verify_chains(store)
    runs = AgentRunActivities(
        directory=store.directory,
        memory=store.memory,
        ledger=store.governance,
        model=model or build_model(settings),
        clock=clock,
    )
    broker = BrokerActivities(
        ledger=store.governance,
        connectors=build_connectors(store, clock),
        clock=clock,
        enforced=settings.enforced,
    )
    activities: dict[str, Callable[..., Any]] = {
        "resolve": runs.resolve,
        "context": runs.context,
        "reasoning": runs.reasoning,
        "broker_decide": broker.decide,
        "broker_review": broker.review,
        "broker_expire": broker.expire,
        "dispatch": broker.dispatch,
    }
    unknown = set(replace or {}) - activities.keys()
    if unknown:
        raise ValueError(f"no activity named {', '.join(sorted(unknown))}")
    activities.update(replace or {})
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[AgentRunWorkflow],
        activities=list(activities.values()),
    )
