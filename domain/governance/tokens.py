"""Dispatch tokens: the one check that a write is permitted, used by whoever issues a
token and by every connector before it writes."""

from __future__ import annotations

from domain.audit.chain import AuditEntry, ChainKeys, entry_problem
from domain.errors import FoundationBroken
from domain.governance.intents import Decision, DispatchToken, Intent, Outcome
from domain.organization.contracts import Frozen


class TokenProblem(Frozen):
    """Why a token does not permit a write."""

    reason: str
    foundation: bool
    """True when the record itself is broken (an allowing entry missing, altered,
    unsigned, or about something else): the broker must be poisoned. False for a token
    that is merely stale (its intent was closed since)."""


def token_problem(
    token: DispatchToken,
    intent: Intent,
    entry: AuditEntry | None,
    keys: ChainKeys,
    status: Outcome | None,
    dispatched: bool,
) -> TokenProblem | None:
    """Why ``token`` does not permit writing ``intent``, or None when it does.

    ``entry`` is the audit entry the token names (None when there is none), ``status``
    and ``dispatched`` the intent as recorded now. The entry must be intact and signed,
    about this very intent and content, and an allow or an approval; the intent must not
    have been closed since (a write that already happened may be replayed).
    """

    def broken(reason: str) -> TokenProblem:
        return TokenProblem(reason=reason, foundation=True)

    if token.intent_id != intent.id or token.org_id != intent.org_id:
        return broken("the token names another intent")
    if token.intent_digest != intent.digest:
        return broken("the intent changed after it was decided")
    if entry is None or entry.entry_hash != token.entry_hash:
        return broken(f"no audit entry {token.audit_seq} with that hash")
    problem = entry_problem(entry, keys)
    if problem is not None:
        return broken(f"audit entry {token.audit_seq}: {problem}")
    if entry.intent_id != intent.id or entry.payload.get("intent_digest") != intent.digest:
        return broken("the audit entry is about another intent")
    if entry.decision not in (Outcome.ALLOW, Outcome.APPROVED):
        return broken(f"the audited decision is {entry.decision}, not an allow")
    if status is None:
        return broken("the intent is not recorded")
    if not status.may_dispatch and not dispatched:
        return TokenProblem(reason=f"the intent is now {status}", foundation=False)
    return None


def token_for(intent: Intent, decision: Decision) -> DispatchToken:
    """The token naming ``decision``, the audited allow or approval of ``intent``."""
    if decision.audit_seq is None or decision.entry_hash is None:
        raise FoundationBroken("the decision has no audit entry")
    return DispatchToken(
        org_id=intent.org_id,
        intent_id=intent.id,
        audit_seq=decision.audit_seq,
        entry_hash=decision.entry_hash,
        intent_digest=intent.digest,
    )
