"""Dispatch tokens: the one check that a write is permitted, used by whoever issues a
token and by every connector before it writes."""

from __future__ import annotations

from domain.audit import AuditEntry, ChainKeys, entry_problem
from domain.intents import DispatchToken, Intent, Outcome


def token_problem(
    token: DispatchToken,
    intent: Intent,
    entry: AuditEntry | None,
    keys: ChainKeys,
    status: Outcome | None,
    dispatched: bool,
) -> str | None:
    """Why ``token`` does not permit writing ``intent``, or None when it does.

    ``entry`` is the audit entry the token names (None when there is none), ``status``
    and ``dispatched`` the intent as recorded now. The entry must be intact and signed,
    about this very intent and content, and an allow or an approval; the intent must not
    have been closed since (a write that already happened may be replayed).
    """
    if token.intent_id != intent.id or token.org_id != intent.org_id:
        return "the token names another intent"
    if token.intent_digest != intent.digest:
        return "the intent changed after it was decided"
    if entry is None or entry.entry_hash != token.entry_hash:
        return f"no audit entry {token.audit_seq} with that hash"
    problem = entry_problem(entry, keys)
    if problem is not None:
        return f"audit entry {token.audit_seq}: {problem}"
    if entry.intent_id != intent.id or entry.payload.get("intent_digest") != intent.digest:
        return "the audit entry is about another intent"
    if entry.decision not in (Outcome.ALLOW, Outcome.APPROVED):
        return f"the audited decision is {entry.decision}, not an allow"
    if status is None:
        return "the intent is not recorded"
    if not status.may_dispatch and not dispatched:
        return f"the intent is now {status}"
    return None
