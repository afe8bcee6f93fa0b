"""Build the ports the use cases receive, from settings and opened adapters."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from temporalio.client import Client

from adapters.ingress.channels import SlackSignature, TeamsSignature
from adapters.ingress.local_issuer import KEY_FILE, LOCAL_AUDIENCE
from adapters.ingress.oidc import KeySet, OidcVerifier, key_source
from adapters.memory.backends import compaction_engine
from adapters.memory.embedders import GeminiEmbedder, local_embedder
from adapters.memory.entity_tagger import local_tagger
from adapters.memory.screen_classifier import local_classifier
from adapters.memory.screen_judge import ModelJudge
from adapters.models.gemini import GeminiAccess, GeminiProvider
from adapters.models.replay import answered_tasks
from adapters.store.counterfactual import SqlReplay
from adapters.store.heartbeat import SqlHeartbeat
from adapters.store.learning import SqlLearning
from adapters.store.store import Store
from adapters.temporal.audit_anchor import TemporalAnchor
from adapters.temporal.commitments import TemporalExtractions
from adapters.temporal.deliberation import TemporalDeliberations
from adapters.temporal.heartbeat import TemporalHeartbeats
from adapters.temporal.learning import TemporalLearning
from adapters.temporal.runs import TemporalRuns
from adapters.temporal.work_graph import TemporalGraphs
from domain.ingress import BudgetCeilings, ChannelSignature, ConsoleSignIn, TokenVerifier
from domain.memory.judge import ScreenJudge
from domain.memory.ports import Embedder
from domain.organization.kinds import IdentityKind
from usecases.context import Ports
from worker.clock import utc_now
from worker.settings import Settings


def build_embedder(settings: Settings) -> Embedder:
    """Memory's embedder, as the settings choose it."""
    if settings.resolved_embedder == "gemini":
        access = gemini_access(settings)
        assert access is not None  # the settings refuse it otherwise
        return GeminiEmbedder(access, settings.gemini_embedding_model)
    return local_embedder()


def open_store(settings: Settings) -> Store:
    """The process's store: its database, audit keys, embedder and memory backend (a
    backend or embedder that does not satisfy its protocol is refused here)."""
    return Store.open(
        settings.database_url,
        settings.chain_keys(),
        embedder=build_embedder(settings),
        memory_backend=settings.memory_adapter,
    )


def gemini_access(settings: Settings) -> GeminiAccess | None:
    """How this process reaches Gemini (an API key, or Vertex AI); None: it cannot."""
    if settings.gemini_api_key is not None:
        return GeminiAccess(
            api_key=settings.gemini_api_key.get_secret_value(),
            base_url=settings.gemini_base_url,
            timeout_seconds=settings.gemini_timeout_seconds,
        )
    if settings.gemini_vertex_project is not None:
        return GeminiAccess(
            project=settings.gemini_vertex_project,
            location=settings.gemini_vertex_location,
            base_url=settings.gemini_base_url,
            timeout_seconds=settings.gemini_timeout_seconds,
        )
    return None


def gemini_provider(settings: Settings) -> GeminiProvider | None:
    """Gemini, when it is the configured model provider (alone or capturing)."""
    if settings.resolved_provider not in ("gemini", "capture"):
        return None
    access = gemini_access(settings)
    assert access is not None  # the settings refuse it otherwise
    return GeminiProvider(access, settings.gemini_model)


def build_judge(settings: Settings) -> ScreenJudge | None:
    """The screen's model layer: Gemini when it is the configured provider, else none."""
    gemini = gemini_provider(settings)
    return None if gemini is None else ModelJudge(gemini)


def build_tokens(settings: Settings) -> TokenVerifier | None:
    """The configured OIDC issuer's token verifier. With none configured, in development,
    the local issuer's when ``verletica up`` has made its key; otherwise None."""
    if settings.oidc_issuer is None or settings.oidc_audience is None or settings.oidc_jwks is None:
        local = Path(settings.data_dir) / KEY_FILE
        if settings.environment != "development" or not local.exists():
            return None
        url = settings.local_issuer_url
        return OidcVerifier(url, LOCAL_AUDIENCE, KeySet(key_source(f"{url}/jwks.json")))
    keys = KeySet(key_source(settings.oidc_jwks))
    return OidcVerifier(settings.oidc_issuer, settings.oidc_audience, keys)


def build_console(settings: Settings) -> ConsoleSignIn | None:
    """The web console's sign-in: the configured issuer (its client id is the audience),
    or in development the local issuer of ``verletica up``; its sessions are signed with
    a key derived from the approval key."""
    secret = settings.approval_keys().current.secret
    session_key = hashlib.sha256(b"verletica console session\x00" + secret).digest()
    if settings.oidc_issuer is not None and settings.oidc_audience is not None:
        client_secret = settings.oidc_client_secret
        return ConsoleSignIn(
            issuer=settings.oidc_issuer,
            client_id=settings.oidc_audience,
            client_secret=None if client_secret is None else client_secret.get_secret_value(),
            session_key=session_key,
        )
    if settings.environment != "development":
        return None
    return ConsoleSignIn(
        issuer=settings.local_issuer_url, client_id=LOCAL_AUDIENCE, session_key=session_key
    )


def build_channels(settings: Settings) -> dict[IdentityKind, ChannelSignature]:
    """The chat channels whose webhook secret is configured."""
    channels: dict[IdentityKind, ChannelSignature] = {}
    if settings.slack_signing_secret is not None:
        channels[IdentityKind.SLACK] = SlackSignature(
            settings.slack_signing_secret.get_secret_value()
        )
    if settings.teams_hmac_secret is not None:
        channels[IdentityKind.TEAMS] = TeamsSignature(settings.teams_hmac_secret.get_secret_value())
    return channels


def build_ports(
    store: Store,
    client: Client | None,
    settings: Settings,
    clock: Callable[[], datetime] = utc_now,
) -> Ports:
    """The use cases' view of this process: the store, Temporal (None: unreachable), the
    clock, and whether scripted replies are honoured (only under the scripted provider)."""
    return Ports(
        directory=store.directory,
        configuration=store.configuration,
        runs=store.runs,
        audit=store.audit,
        governance=store.governance,
        gateway=TemporalRuns(
            client,
            settings.task_queue,
            settings.temporal_ui_url,
            settings.temporal_namespace,
        ),
        memory=store.memory,
        embedder=store.memory.embedder,
        clock=clock,
        # A reply given by a person is honoured only where no real model answers.
        scripted_replies=settings.resolved_provider in ("scripted", "replay"),
        answered_tasks=answered_tasks() if settings.resolved_provider == "replay" else {},
        screen_classifier=local_classifier(),
        entity_finder=local_tagger(),
        screen_judge=build_judge(settings),
        compactor=compaction_engine(settings.compaction_engine),
        screen_judge_from=settings.screen_model_from,
        tokens=build_tokens(settings),
        console=build_console(settings),
        approvals=settings.approval_keys(),
        front_door=store.front_door,
        budgets=BudgetCeilings(
            period=settings.budget_period,
            requests_per_principal=settings.budget_requests_per_principal,
            requests_per_org=settings.budget_requests_per_org,
            model_cents_per_principal=settings.budget_model_cents_per_principal,
            model_cents_per_org=settings.budget_model_cents_per_org,
            model_cents_per_run=settings.budget_model_cents_per_run,
        ),
        channels=build_channels(settings),
        dev_principal_header=settings.dev_principal_header,
        heartbeats=SqlHeartbeat(store.db, store.keys),
        heartbeat=TemporalHeartbeats(client, settings.task_queue),
        anchor=None if client is None else TemporalAnchor(client),
        extractions=TemporalExtractions(client, settings.task_queue),
        graphs=TemporalGraphs(client, settings.task_queue),
        deliberations=TemporalDeliberations(client, settings.task_queue),
        replays=SqlReplay(store.db, store.memory_stores),
        offers=store.offers,
        experiences=SqlLearning(store.db, store.keys),
        learning=TemporalLearning(client, settings.task_queue),
    )
