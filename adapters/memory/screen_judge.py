"""The screen's model layer over a :class:`~domain.model_provider.ModelProvider` (Gemini when a key
is set). Ingestion is synchronous and providers are asynchronous, so each question runs
on a short-lived event loop in a thread of its own (safe whether or not the caller is
inside a loop). A failure is logged and counts as no answer."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from domain.memory.judge import SYSTEM_PROMPT, Verdict, parse_verdict, prompt
from domain.model_provider import ModelProvider, ModelRequest

log = logging.getLogger("verletica.memory")


class ModelJudge:
    """:class:`~domain.memory.judge.ScreenJudge` asking ``provider``."""

    def __init__(self, provider: ModelProvider, timeout: float = 30.0) -> None:
        self._provider = provider
        self._timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="screen-judge")

    def judge(self, text: str) -> Verdict | None:
        request = ModelRequest(
            agent_handle="screen",
            task="screen a document before it is stored",
            system_prompt=SYSTEM_PROMPT,
            prompt=prompt(text),
        )
        try:
            future = self._pool.submit(asyncio.run, self._provider.generate(request))
            reply = future.result(timeout=self._timeout)
        except Exception as exc:  # noqa: BLE001 - the layer is advisory: it abstains
            log.warning("the screen's model layer gave no answer: %s", exc)
            return None
        verdict = parse_verdict(reply.text)
        if verdict is None:
            log.warning("the screen's model layer answered something that is not a verdict")
        return verdict
