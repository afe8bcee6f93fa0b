"""Hostile input at the HTTP door: oversized bodies, wrong content types, bytes that are
not UTF-8, deeply nested JSON and unknown fields each get a 4xx with a reason; never a
5xx, never a hung request."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from api.app import MAX_BODY_BYTES
from tests.conftest import Firm


def _memory(firm: Firm) -> tuple[str, dict[str, str]]:
    return f"/v1/orgs/{firm.org}/memory", {"X-Verletica-Principal": firm.founder}


def test_an_oversized_body_is_a_413(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    huge = json.dumps({"ref": "x", "projects": ["east"], "text": "a" * MAX_BODY_BYTES})
    got = api.post(url, content=huge, headers={**headers, "Content-Type": "application/json"})
    assert got.status_code == 413 and "bytes" in got.json()["detail"]


def test_a_body_that_lies_about_its_length_or_streams_past_the_limit_is_refused(
    api: TestClient, firm: Firm
) -> None:
    url, headers = _memory(firm)

    def chunks() -> object:
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b"a" * 65536

    got = api.post(url, content=chunks(), headers={**headers, "Content-Type": "application/json"})
    assert got.status_code == 413


def test_a_wrong_content_type_is_a_415(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    body = json.dumps({"ref": "x", "projects": ["east"], "text": "hello"})
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "application/xml"):
        got = api.post(url, content=body, headers={**headers, "Content-Type": ctype})
        assert got.status_code == 415, ctype
        assert "application/json" in got.json()["detail"]


def test_bytes_that_are_not_utf8_are_a_4xx(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    body = b'{"ref": "x", "projects": ["east"], "text": "caf\xe9"}'
    got = api.post(url, content=body, headers={**headers, "Content-Type": "application/json"})
    assert 400 <= got.status_code < 500


def test_deeply_nested_json_is_a_4xx(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    for depth in (100, 5000, 100_000):
        body = "[" * depth + "]" * depth
        got = api.post(url, content=body, headers={**headers, "Content-Type": "application/json"})
        assert 400 <= got.status_code < 500, depth


def test_unknown_fields_are_a_422(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    got = api.post(
        url, json={"ref": "x", "projects": ["east"], "text": "hi", "admin": True}, headers=headers
    )
    assert got.status_code == 422 and "admin" in json.dumps(got.json())
