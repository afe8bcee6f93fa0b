"""Gemini provider on the official ``google-genai`` client."""

from __future__ import annotations

from google import genai
from google.genai import types

from domain.model_provider import ModelReply, ModelRequest


class GeminiProvider:
    """One ``generate_content`` call per reasoning step, JSON output, temperature 0."""

    name = "gemini"

    def __init__(self, api_key: str, model: str, base_url: str | None = None) -> None:
        options = types.HttpOptions(base_url=base_url) if base_url else None
        self._client = genai.Client(api_key=api_key, http_options=options)
        self._model = model

    async def generate(self, request: ModelRequest) -> ModelReply:
        response = await self._client.aio.models.generate_content(
            model=self._model,
            contents=request.prompt,
            config=types.GenerateContentConfig(
                system_instruction=request.system_prompt,
                response_mime_type="application/json",
                temperature=0.0,
            ),
        )
        usage = response.usage_metadata
        return ModelReply(
            text=response.text or "",
            provider=self.name,
            model=response.model_version or self._model,
            input_tokens=usage.prompt_token_count if usage else None,
            output_tokens=usage.candidates_token_count if usage else None,
        )
