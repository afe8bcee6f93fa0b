"""Gemini provider on the official ``google-genai`` client, through the Gemini API (an
API key) or Vertex AI (a Google Cloud project and location, application default
credentials)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google import genai
from google.genai import errors, types

from domain.model_provider import ModelReply, ModelRequest

DEFAULT_TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class GeminiAccess:
    """How this process reaches Gemini, for the model and the embedder alike: the
    Gemini API with ``api_key``, or Vertex AI in ``project`` and ``location`` (with
    ``credentials``, or else the application default credentials: a service account on
    the machine, ``GOOGLE_APPLICATION_CREDENTIALS``, or ``gcloud auth
    application-default login``). Every call gives up after ``timeout_seconds``."""

    api_key: str | None = None
    project: str | None = None
    location: str = "global"
    base_url: str | None = None
    """Another endpoint (a regional one, a proxy; the tests' local server)."""
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    credentials: Any = None
    """``google.auth`` credentials for Vertex AI; None: the application default ones."""

    def __post_init__(self) -> None:
        if (self.api_key is None) == (self.project is None):
            raise ValueError("reach Gemini with an API key or a Vertex AI project: one of them")
        if not self.timeout_seconds > 0:
            raise ValueError("a Gemini call's timeout must be positive")

    @property
    def via(self) -> str:
        """``gemini`` (the Gemini API) or ``vertex`` (Vertex AI)."""
        return "gemini" if self.project is None else "vertex"

    def client(self) -> genai.Client:
        """A google-genai client for this access."""
        options = types.HttpOptions(
            base_url=self.base_url, timeout=int(self.timeout_seconds * 1000)
        )
        if self.project is not None:
            return genai.Client(
                vertexai=True,
                project=self.project,
                location=self.location,
                credentials=self.credentials,
                http_options=options,
            )
        # vertexai=False: GOOGLE_GENAI_USE_VERTEXAI in the environment does not switch it
        return genai.Client(vertexai=False, api_key=self.api_key, http_options=options)


RETRIED = frozenset({408, 429})
"""The client errors that may pass if asked again (a timeout, a rate limit)."""


class GeminiRefused(ValueError):
    """Gemini refused the request itself (a bad key, no permission, an invalid request):
    asking again cannot help, so the run does not retry it (its cause is the client's
    error, with the code and status Gemini gave)."""


class GeminiProvider:
    """One ``generate_content`` call per reasoning step, JSON output, temperature 0.
    A server error, a timeout or a rate limit is raised as the client raises it (the run
    retries); any other refusal is :class:`GeminiRefused` (the run does not)."""

    name = "gemini"

    def __init__(self, access: GeminiAccess, model: str) -> None:
        self._client = access.client()
        self._model = model

    async def generate(self, request: ModelRequest) -> ModelReply:
        try:
            response = await self._client.aio.models.generate_content(
                model=self._model,
                contents=request.prompt,
                config=types.GenerateContentConfig(
                    system_instruction=request.system_prompt,
                    response_mime_type="application/json",
                    temperature=0.0,
                ),
            )
        except errors.ClientError as exc:
            if exc.code in RETRIED:
                raise
            raise GeminiRefused(f"Gemini refused the request: {exc}") from exc
        usage = response.usage_metadata
        return ModelReply(
            text=response.text or "",
            provider=self.name,
            model=response.model_version or self._model,
            input_tokens=usage.prompt_token_count if usage else None,
            output_tokens=usage.candidates_token_count if usage else None,
        )
