"""What an action carries out of the firm, read once from its payload.

Where a message goes and what its text names (recipients, links, addresses, bank
details, the words it is made of) depend on the intent alone, not on the organization's
state. So they are read before the decision takes the organization's lock
(:func:`usecases.governance.decide`), and the egress stage under the lock only compares
them with what is established: parsing text is the slow part of deciding where work may
go, and the lock is what every concurrent decision of the organization waits on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from domain.governance.addresses import (
    accounts_in,
    addresses_in,
    fold_account,
    fold_name,
    links_in,
    recipient_list,
)
from domain.organization.contracts import ToolSpec

RELAY_WORDS = 12
"""Consecutive words an outgoing text may share with outside content the run read before
it is held as relaying that content (a reply quotes a phrase; a relay copies a passage)."""

_WORD = re.compile(r"\w+", re.UNICODE)

_STOP = frozenset(
    "a an and are as at be been but by can could do for from had has have here his her "
    "how i if in into is it its just may me more most my no not now of on or our out "
    "over please so some than that the their them then there these they this those to "
    "too up us very was we were what when which while who will with would you your".split()
)


def governs(tool: ToolSpec | None) -> bool:
    """Whether ``tool`` sends or pays somewhere: the broker checks where."""
    return tool is not None and bool(
        tool.recipient_param or tool.payee_param or tool.content_params
    )


@dataclass(frozen=True, slots=True)
class Outbound:
    """Where one action goes and what it carries, as the egress stage compares them."""

    tool: ToolSpec
    """The tool it was read for (the stage uses it only for that tool)."""
    recipients_raw: str | None
    """The recipient field as written; None for a tool that has none."""
    recipients: tuple[str, ...] | None
    """Its mailboxes, folded, each once; None when it is not plainly addresses (or, for a
    tool with a recipient field, names none)."""
    payee_shown: str | None
    """The payee as written (spacing squeezed); None for a tool that pays no one."""
    payee: str | None
    """The payee's folded name."""
    account: str | None
    """The bank account the payment names, folded; None when it names none."""
    text: str
    """Everything written into what leaves the firm (an email's subject and body)."""
    addresses: tuple[str, ...]
    links: tuple[str, ...]
    accounts: tuple[str, ...]
    """What :attr:`text` names: addresses, link hosts, bank accounts."""
    words: frozenset[str]
    """The content words of :attr:`text` (what it is about)."""
    shingles: frozenset[tuple[str, ...]]
    """Every run of :data:`RELAY_WORDS` consecutive words of :attr:`text`."""


def outbound(tool: ToolSpec | None, payload: Mapping[str, object]) -> Outbound | None:
    """What ``payload`` of ``tool`` carries out of the firm; None for a tool that sends
    and pays nothing."""
    if tool is None or not governs(tool):
        return None
    raw = None if tool.recipient_param is None else str(payload.get(tool.recipient_param, ""))
    named = None if raw is None else recipient_list(raw)
    shown = payee = account = None
    if tool.payee_param is not None:
        shown = " ".join(str(payload.get(tool.payee_param, "")).split())
        payee = fold_name(shown)
        given = payload.get(tool.account_param or "")
        account = fold_account(given) if isinstance(given, str) and given.strip() else None
    text = " \n".join(str(payload.get(name, "")) for name in tool.content_params)
    return Outbound(
        tool=tool,
        recipients_raw=raw,
        recipients=None if named is None else tuple(named),
        payee_shown=shown,
        payee=payee,
        account=account,
        text=text,
        addresses=tuple(addresses_in(text)),
        links=tuple(links_in(text)),
        accounts=tuple(accounts_in(text)),
        words=_content_words(text),
        shingles=_shingles(text),
    )


def _content_words(text: str) -> frozenset[str]:
    words = (w.casefold() for w in _WORD.findall(text))
    return frozenset(
        w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in _STOP
    )


def _shingles(text: str) -> frozenset[tuple[str, ...]]:
    found = [w.casefold() for w in _WORD.findall(text)]
    n = RELAY_WORDS
    return frozenset(tuple(found[i : i + n]) for i in range(len(found) - n + 1))


content_words = lru_cache(maxsize=4096)(_content_words)
"""The words of a text that carry meaning, a plural or third-person ``s`` dropped: cached,
for the records runs read (one record is read by many runs)."""

shingles = lru_cache(maxsize=1024)(_shingles)
"""Every run of :data:`RELAY_WORDS` consecutive words of a text, case folded: cached, as
:data:`content_words`."""
