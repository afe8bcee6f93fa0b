"""The local issuer's authorization codes: redeemed once, within their minute, only by
the client and redirect they were issued to, and only with their PKCE verifier."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.ingress.local_issuer import (
    CODE_SECONDS,
    AuthorizationCodes,
    CodeRefused,
    pkce_challenge,
)
from tests.support import race

VERIFIERS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-._~", min_size=43, max_size=128)


def _issued(codes: AuthorizationCodes, verifier: str, now: float = 1000.0) -> str:
    return codes.issue(
        "ada@hv.example",
        client_id="console",
        redirect_uri="http://127.0.0.1:8000/console/callback",
        challenge=pkce_challenge(verifier),
        nonce="n-1",
        now=now,
    )


def _redeem(codes: AuthorizationCodes, code: str, verifier: str, **over: object) -> object:
    args: dict[str, object] = {
        "client_id": "console",
        "redirect_uri": "http://127.0.0.1:8000/console/callback",
        "verifier": verifier,
        "now": 1001.0,
    } | over
    return codes.redeem(code, **args)  # type: ignore[arg-type]


@given(VERIFIERS, VERIFIERS)
def test_only_the_verifier_of_the_challenge_redeems_a_code(right: str, other: str) -> None:
    codes = AuthorizationCodes()
    code = _issued(codes, right)
    if other != right:
        with pytest.raises(CodeRefused, match="PKCE"):
            _redeem(codes, code, other)
        code = _issued(codes, right)  # a refused attempt spends the code
    assert _redeem(codes, code, right) == ("ada@hv.example", "n-1")


def test_a_code_is_spent_once_and_expires() -> None:
    codes = AuthorizationCodes()
    code = _issued(codes, "v" * 43)
    assert _redeem(codes, code, "v" * 43)
    with pytest.raises(CodeRefused, match="used"):
        _redeem(codes, code, "v" * 43)
    late = _issued(codes, "v" * 43)
    with pytest.raises(CodeRefused, match="expired"):
        _redeem(codes, late, "v" * 43, now=1000.0 + CODE_SECONDS)


@pytest.mark.parametrize(
    "over", [{"client_id": "someone-else"}, {"redirect_uri": "http://127.0.0.1:9/steal"}]
)
def test_a_code_serves_only_its_client_and_redirect(over: dict[str, object]) -> None:
    codes = AuthorizationCodes()
    code = _issued(codes, "w" * 43)
    with pytest.raises(CodeRefused, match="another client"):
        _redeem(codes, code, "w" * 43, **over)
    with pytest.raises(CodeRefused):
        _redeem(codes, code, "w" * 43)  # and it is spent


@given(st.text(max_size=60))
def test_an_unknown_code_is_refused(code: str) -> None:
    with pytest.raises(CodeRefused):
        _redeem(AuthorizationCodes(), code, "x" * 43)


@pytest.mark.parametrize("verifier", ["é" * 43, "short", "x" * 129, "has space" + "x" * 40])
def test_a_verifier_outside_rfc_7636_is_refused_not_a_crash(verifier: str) -> None:
    codes = AuthorizationCodes()
    code = _issued(codes, "v" * 43)
    with pytest.raises(CodeRefused, match="RFC 7636"):
        _redeem(codes, code, verifier)


def test_racing_redemptions_of_one_code_spend_it_once() -> None:
    for _ in range(20):
        codes = AuthorizationCodes()
        code = _issued(codes, "r" * 43)
        results = race([lambda c=codes, k=code: _redeem(c, k, "r" * 43)] * 6)
        assert sum(not isinstance(r, Exception) for r in results) == 1, results
        assert all(isinstance(r, CodeRefused) for r in results if isinstance(r, Exception))
