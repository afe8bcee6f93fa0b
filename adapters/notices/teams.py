"""Notices on Microsoft Teams: an Adaptive Card posted to the channel of the firm's
incoming webhook (a Teams workflow's "post to a channel when a webhook request is
received"), mentioning the person so that Teams tells them."""

from __future__ import annotations

from typing import Any

import httpx

from domain.notices import Notice, Reply, http_reply

TIMEOUT_SECONDS = 20.0


def card(notice: Notice) -> dict[str, Any]:
    """The webhook's message: an Adaptive Card with the notice's words, a mention of the
    person (by their Entra object id) and a button to its page."""
    mention = f"<at>{notice.name}</at>"
    return {
        "type": "message",
        "attachments": [
            {
                "contentType": "application/vnd.microsoft.card.adaptive",
                "content": {
                    "type": "AdaptiveCard",
                    "version": "1.4",
                    "body": [
                        {
                            "type": "TextBlock",
                            "text": f"{mention} {notice.subject}",
                            "weight": "Bolder",
                            "wrap": True,
                        },
                        {"type": "TextBlock", "text": notice.body, "wrap": True},
                    ],
                    "actions": [
                        {
                            "type": "Action.OpenUrl",
                            "title": "Open in the console",
                            "url": notice.link,
                        }
                    ],
                    "msteams": {
                        "entities": [
                            {
                                "type": "mention",
                                "text": mention,
                                "mentioned": {"id": notice.address, "name": notice.name},
                            }
                        ]
                    },
                },
            }
        ],
    }


class TeamsNotifier:
    """Posts each notice to the firm's Teams channel, mentioning the person."""

    def __init__(
        self,
        webhook_url: str,
        transport: httpx.BaseTransport | None = None,
        timeout: float = TIMEOUT_SECONDS,
    ) -> None:
        self._url = webhook_url
        self._transport, self._timeout = transport, timeout

    def send(self, notice: Notice) -> Reply:
        try:
            with httpx.Client(transport=self._transport, timeout=self._timeout) as http:
                answer = http.post(self._url, json=card(notice))
        except httpx.HTTPError as exc:
            return Reply(code=None, detail=f"{type(exc).__name__}: {exc}")
        return http_reply(answer.status_code, answer.text[:200] or answer.reason_phrase)
