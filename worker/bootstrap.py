"""The composition root: build adapters from settings, activities from adapters."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from opentelemetry.trace import TracerProvider
from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.worker import Worker

from activities.audit_anchor import AnchorActivities
from activities.commitments import ExtractionActivities
from activities.deliberation import DeliberationActivities
from activities.governance import BrokerActivities
from activities.heartbeat import HeartbeatActivities
from activities.learning import LearningActivities
from activities.notices import NoticeActivities
from activities.relay import RelayActivities
from activities.runs import AgentRunActivities
from activities.tracing import use as use_tracer
from activities.work_graph import GraphActivities
from adapters.connectors.email import EmailOutbox
from adapters.connectors.findings import FindingsRegister
from adapters.connectors.holds import HoldsRegister
from adapters.connectors.keys import KeyCloser
from adapters.connectors.payments import PaymentsLedger
from adapters.connectors.webhook import WebhookPoster
from adapters.models.plugin import model_provider
from adapters.models.replay import CapturingProvider, ReplayProvider
from adapters.models.scripted import ScriptedProvider
from adapters.notices.email import EmailNotifier
from adapters.notices.slack import SlackNotifier
from adapters.notices.teams import TeamsNotifier
from adapters.relay.smtp import SmtpMailer
from adapters.store.heartbeat import SqlHeartbeat
from adapters.store.learning import SqlLearning
from adapters.store.notices import SqlNotices
from adapters.store.relay import SqlOutbox
from adapters.store.store import Store
from adapters.temporal.runs import TemporalRuns
from adapters.witness.client import HttpWitness
from domain.audit.checkpoint import Verifier
from domain.errors import NotFound
from domain.governance.ports import Connector
from domain.governance.usage import TokenPrices
from domain.model_provider import ModelProvider
from domain.notices import Channel, Console, Notifier
from domain.webhooks import WebhookTarget
from usecases import governance
from usecases.notices import NoticeSettings
from worker.clock import utc_now
from worker.ports import build_ports, gemini_provider
from worker.settings import BUILT_IN_PROVIDERS, Settings
from workflows.audit_anchor import AuditAnchorWorkflow
from workflows.commitments import ExtractCommitmentsWorkflow
from workflows.deliberation import DeliberationWorkflow
from workflows.heartbeat import HeartbeatWorkflow
from workflows.learning import LearningWorkflow
from workflows.notices import NoticesWorkflow
from workflows.relay import RelayWorkflow
from workflows.runs import AgentRunWorkflow
from workflows.work_graph import WorkGraphWorkflow

log = logging.getLogger("verletica.worker")


def build_mailer(settings: Settings) -> SmtpMailer | None:
    """The mail relay's SMTP server, when one is configured."""
    if settings.smtp_host is None:
        return None
    return SmtpMailer(
        settings.smtp_host,
        settings.smtp_port,
        settings.smtp_from,
        starttls=settings.smtp_starttls,
        username=settings.smtp_username,
        password=None
        if settings.smtp_password is None
        else settings.smtp_password.get_secret_value(),
    )


def build_witness(settings: Settings) -> HttpWitness | None:
    """The witness the anchor asks to cosign, when one is configured."""
    if settings.witness_url is None or settings.witness_key is None:
        return None
    return HttpWitness(settings.witness_url, Verifier.from_vkey(settings.witness_key))


def build_notifiers(settings: Settings) -> dict[Channel, Notifier]:
    """The channels notices go out on: email with an SMTP server, Slack with a bot
    token, Teams with a webhook."""
    notifiers: dict[Channel, Notifier] = {}
    mailer = build_mailer(settings)
    if mailer is not None:
        notifiers[Channel.EMAIL] = EmailNotifier(mailer)
    if settings.slack_bot_token is not None:
        notifiers[Channel.SLACK] = SlackNotifier(
            settings.slack_bot_token.get_secret_value(), settings.slack_api_url
        )
    if settings.teams_webhook_url is not None:
        notifiers[Channel.TEAMS] = TeamsNotifier(settings.teams_webhook_url.get_secret_value())
    return notifiers


def notice_settings(settings: Settings) -> NoticeSettings:
    """Where notices point and when the digest is written."""
    return NoticeSettings(
        console=Console(url=settings.console_link),
        channels=frozenset(build_notifiers(settings)),
        digest_hour=settings.notice_digest_hour,
    )


def build_model(settings: Settings) -> ModelProvider:
    """The model provider the settings name: a built-in, or ``pkg.mod:Class`` (called with
    no arguments; refused at start-up, :class:`BackendRefused`, when it does not satisfy
    the port)."""
    provider = settings.resolved_provider
    if provider == "replay":
        return ReplayProvider()
    if provider == "scripted":
        return ScriptedProvider(settings.scripted_delay_ms / 1000)
    if provider not in BUILT_IN_PROVIDERS:
        return model_provider(provider)
    gemini = gemini_provider(settings)
    assert gemini is not None  # neither replay nor scripted: Gemini, alone or capturing
    if provider == "capture":
        return CapturingProvider(gemini, Path(settings.capture_path))
    return gemini


def build_connectors(
    store: Store,
    clock: Callable[[], datetime],
    webhooks: Mapping[str, WebhookTarget] | None = None,
) -> dict[tuple[str, str], Connector]:
    """Connectors registered by (system, action); ``webhooks`` are the systems
    ``webhook.post`` may reach, by name."""
    connectors: list[Connector] = [
        PaymentsLedger(store.db, clock, store.keys),
        EmailOutbox(store.db, clock, store.keys),
        FindingsRegister(store.db, clock, store.keys),
        HoldsRegister(store.db, clock, store.keys),
        WebhookPoster(store.db, clock, store.keys, webhooks or {}),
        KeyCloser(store.db, clock, store.keys, store.governance),
    ]
    return {(c.system, action): c for c in connectors for action in c.actions}


def verify_chains(store: Store, clock: Callable[[], datetime] = utc_now) -> dict[str, str]:
    """Verify every organization's chain; poison the broker of each that is broken (on the
    record, in the database, so that every worker refuses to act for it). Returns the
    problem of each organization poisoned now."""
    poisoned: dict[str, str] = {}
    for org_id, result in store.audit.verify_all().items():
        if result.ok:
            continue
        hint = (
            " (if the audit key changed, give the key that signed it as VERLETICA_AUDIT_KEY "
            "or in VERLETICA_AUDIT_RETIRED_KEYS, then `verletica broker unpoison`)"
            if "signature" in (result.problem or "")
            else ""
        )
        problem = f"audit chain broken at entry {result.broken_at}: {result.problem}{hint}"
        try:
            newly = governance.poison(store.governance, org_id, problem, clock())
        except NotFound:  # no head row at all: nothing can be decided for it anyway
            newly = False
        except Exception:  # one organization's ruin does not keep the worker from the rest
            log.exception("organization %s could not be poisoned", org_id)
            newly = False
        if newly:
            poisoned[org_id] = problem
        log.critical("broker of organization %s is poisoned: %s", org_id, problem)
    return poisoned


def build_worker(
    client: Client,
    settings: Settings,
    store: Store,
    *,
    model: ModelProvider | None = None,
    clock: Callable[[], datetime] = utc_now,
    replace: Mapping[str, Callable[..., Any]] | None = None,
    tracer: TracerProvider | None = None,
) -> Worker:
    """A worker for the agent-run workflow. It verifies every chain first and poisons the
    broker of any organization whose chain is broken.

    ``replace`` swaps activities by activity name (tests stand in for the outside world,
    e.g. ``{"dispatch": failing_dispatch}``); every other activity is the real one.
    With ``tracer``, Temporal's interceptor and our activities' spans go through it
    (and its allowlist); without, no span is exported.
    """
    verify_chains(store, clock)
    use_tracer(tracer)
    runs_model = model or build_model(settings)
    runs = AgentRunActivities(
        directory=store.directory,
        memory=store.memory,
        governance=store.governance,
        model=runs_model,
        clock=clock,
        prices=TokenPrices(
            input_cents_per_mtok=settings.model_input_cents_per_mtok,
            output_cents_per_mtok=settings.model_output_cents_per_mtok,
        ),
    )
    broker = BrokerActivities(
        store=store.governance,
        connectors=build_connectors(store, clock, settings.webhooks),
        clock=clock,
        mode=settings.broker_mode,
        approvals=settings.approval_keys(),
    )
    extraction = ExtractionActivities(
        directory=store.directory,
        memory=store.memory,
        configuration=store.configuration,
        model=runs_model,
        clock=clock,
    )
    heartbeat = HeartbeatActivities(
        SqlHeartbeat(store.db, store.keys),
        TemporalRuns(
            client, settings.task_queue, settings.temporal_ui_url, settings.temporal_namespace
        ),
    )
    learning = LearningActivities(SqlLearning(store.db, store.keys), runs_model)
    graphs = GraphActivities(store.directory, store.runs, clock)
    deliberation = DeliberationActivities(
        store.directory, store.runs, store.governance, runs_model, clock, runs.prices
    )
    relay = RelayActivities(SqlOutbox(store.db, store.keys), build_mailer(settings), clock)
    told = NoticeActivities(
        lambda: build_ports(store, client, settings, clock),
        SqlNotices(store.db, store.keys),
        build_notifiers(settings),
        notice_settings(settings),
        clock,
    )
    anchor = AnchorActivities(
        store.audit, store.governance, clock, settings.anchor_path, build_witness(settings)
    )
    activities: dict[str, Callable[..., Any]] = {
        "audit_anchor": anchor.anchor,
        "resolve": runs.resolve,
        "context": runs.context,
        "resolve_and_recall": runs.resolve_and_recall,
        "reasoning": runs.reasoning,
        "broker_decide": broker.decide,
        "broker_review": broker.review,
        "broker_recheck": broker.recheck,
        "broker_expire": broker.expire,
        "broker_record_run_failure": broker.record_failure,
        "dispatch": broker.dispatch,
        "heartbeat_orgs": heartbeat.orgs,
        "heartbeat_inspect": heartbeat.inspect,
        "heartbeat_record": heartbeat.record,
        "extract_obligations": extraction.extract_obligations,
        "record_extraction": extraction.record_extraction,
        "learning_orgs": learning.orgs,
        "learning_ask": learning.ask,
        "learning_record": learning.record,
        "relay_deliver": relay.deliver,
        "notices_write": told.write,
        "notices_deliver": told.deliver,
        "graph_prepare_step": graphs.prepare_step,
        "deliberation_begin": deliberation.begin,
        "deliberation_round": deliberation.round,
    }
    unknown = set(replace or {}) - activities.keys()
    if unknown:
        raise ValueError(f"no activity named {', '.join(sorted(unknown))}")
    activities.update(replace or {})
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[
            AgentRunWorkflow,
            HeartbeatWorkflow,
            ExtractCommitmentsWorkflow,
            LearningWorkflow,
            RelayWorkflow,
            NoticesWorkflow,
            WorkGraphWorkflow,
            DeliberationWorkflow,
            AuditAnchorWorkflow,
        ],
        activities=list(activities.values()),
        # When a worker dies, the tasks queued to it alone move to the shared queue after
        # this, not after the default 10 s.
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=3),
        # Workflow spans even without a client span (runs start from the API, the command
        # line, channels and Schedules): after a replay such a span may lack its parent.
        interceptors=[
            TracingInterceptor(tracer.get_tracer("temporal"), always_create_workflow_spans=True)
        ]
        if tracer
        else [],
    )
