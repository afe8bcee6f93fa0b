"""One way to build a Temporal client, used by the worker, the API, the CLI and tests."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from worker.settings import Settings


async def make_client(settings: Settings) -> Client:
    """Connect with the pydantic data converter; TLS and API key for a production cluster."""
    api_key = settings.temporal_api_key.get_secret_value() if settings.temporal_api_key else None
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
        tls=settings.temporal_tls or api_key is not None,
        api_key=api_key,
    )
