"""Fixtures shared by the integration tests."""

from tests.integration.test_gemini_provider import gemini_stub  # noqa: F401  (a local Gemini)
