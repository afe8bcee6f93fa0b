"""A local SMTP server (aiosmtpd) for the mail relay's and the notices' tests: it keeps
what it received and answers some addresses as real servers do (``gone@``: 550, no such
mailbox; ``slow@``: 451 once, then accepted)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Inbox:
    """What the local server received, and how it answers each recipient."""

    received: list[tuple[str, bytes]] = field(default_factory=list)
    refused_once: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_RCPT(  # noqa: N802 - aiosmtpd's hook name
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        if address.startswith("gone@"):
            return "550 5.1.1 no such mailbox"
        with self.lock:
            if address.startswith("slow@") and address not in self.refused_once:
                self.refused_once.add(address)
                return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        with self.lock:
            for to in envelope.rcpt_tos:
                self.received.append((to, envelope.content))
        return "250 Message accepted"
