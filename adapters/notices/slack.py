"""Notices on Slack: a direct message from the app's bot (``chat.postMessage`` with the
person's Slack user id as the channel)."""

from __future__ import annotations

import httpx

from domain.notices import Notice, Reply, http_reply

TIMEOUT_SECONDS = 20.0
TRANSIENT = frozenset(
    {"ratelimited", "service_unavailable", "fatal_error", "internal_error", "request_timeout"}
)
"""Slack's errors that another attempt may get past; every other error is final (an
unknown user, a revoked token, a bot not allowed to write to the user)."""


class SlackNotifier:
    """Posts each notice to the person through Slack's Web API."""

    def __init__(
        self,
        token: str,
        api_url: str = "https://slack.com/api",
        transport: httpx.BaseTransport | None = None,
        timeout: float = TIMEOUT_SECONDS,
    ) -> None:
        self._token = token
        self._url = api_url.rstrip("/") + "/chat.postMessage"
        self._transport, self._timeout = transport, timeout

    def send(self, notice: Notice) -> Reply:
        body = {
            "channel": notice.address,
            "text": f"*{notice.subject}*\n{notice.body}",
            "unfurl_links": False,
            "unfurl_media": False,
        }
        try:
            with httpx.Client(transport=self._transport, timeout=self._timeout) as http:
                answer = http.post(
                    self._url,
                    json=body,
                    headers={"Authorization": f"Bearer {self._token}"},
                )
        except httpx.HTTPError as exc:
            return Reply(code=None, detail=f"{type(exc).__name__}: {exc}")
        if answer.status_code != 200:
            return http_reply(answer.status_code, answer.text[:200])
        try:
            said = answer.json()
        except ValueError:
            return Reply(code=200, detail="Slack's answer is not JSON")
        if not isinstance(said, dict):
            return Reply(code=200, detail="Slack's answer is not a JSON object")
        if said.get("ok") is True:
            return Reply(code=200, detail="posted", delivered=True)
        error = str(said.get("error") or "unknown error")
        return Reply(code=200, detail=f"Slack refused it: {error}", final=error not in TRANSIENT)
