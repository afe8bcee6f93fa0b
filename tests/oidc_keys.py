"""RSA keys an issuer must not be trusted with, built for the front door's tests: a key
with the ROCA structure (its primes made as the Infineon library made them), a short
one, and key set entries that no library can build."""

from __future__ import annotations

import random
from functools import cache
from math import gcd, lcm, prod
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from jwt.utils import to_base64url_uint

ROCA_PRIMES_2048 = 126
"""How many of the first primes make the Infineon library's ``M`` for 2048-bit keys
("The Return of Coppersmith's Attack", §2.1)."""


def _probable_prime(n: int, rng: random.Random, rounds: int = 32) -> bool:
    """Miller-Rabin (the tests need primes of a shape no library makes)."""
    if n < 4:
        return n in (2, 3)
    for small in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % small == 0:
            return n == small
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for _ in range(rounds):
        x = pow(rng.randrange(2, n - 2), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _first_primes(count: int) -> list[int]:
    primes: list[int] = []
    candidate = 2
    while len(primes) < count:
        if all(candidate % p for p in primes):
            primes.append(candidate)
        candidate += 1
    return primes


def _private_key(p: int, q: int, e: int = 65537) -> rsa.RSAPrivateKey:
    d = pow(e, -1, lcm(p - 1, q - 1))
    public = rsa.RSAPublicNumbers(e, p * q)
    return rsa.RSAPrivateNumbers(
        p=p,
        q=q,
        d=d,
        dmp1=d % (p - 1),
        dmq1=d % (q - 1),
        iqmp=pow(q, -1, p),
        public_numbers=public,
    ).private_key()


@cache
def roca_key(seed: int = 2017) -> rsa.RSAPrivateKey:
    """A 2048-bit RSA key whose primes are ``k·M + (65537^a mod M)``, ``M`` the product
    of the first 126 primes: what a vulnerable Infineon chip generated."""
    rng = random.Random(seed)
    m = prod(_first_primes(ROCA_PRIMES_2048))

    def prime() -> int:
        while True:
            k = rng.getrandbits(1024 - m.bit_length()) | (0b11 << (1022 - m.bit_length()))
            p = k * m + pow(65537, rng.randrange(1, 2**62), m)
            if gcd(p - 1, 65537) == 1 and _probable_prime(p, rng):
                return p

    while True:
        p, q = prime(), prime()
        if p != q and (p * q).bit_length() == 2048:
            return _private_key(p, q)


@cache
def short_key(bits: int = 1024) -> rsa.RSAPrivateKey:
    """A well-made key, but shorter than RS256 allows."""
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


def jwk_of(key: rsa.RSAPrivateKey | rsa.RSAPublicKey, kid: str, **extra: Any) -> dict[str, Any]:
    """``key``'s public JWK under ``kid``."""
    public = key.public_key() if isinstance(key, rsa.RSAPrivateKey) else key
    entry: dict[str, Any] = RSAAlgorithm.to_jwk(public, as_dict=True)
    return {**entry, "kid": kid, **extra}


def jwk_numbers(n: int, e: int, kid: str) -> dict[str, Any]:
    """A JWK of the raw numbers ``(n, e)``: what no library would build as a key."""
    return {
        "kty": "RSA",
        "kid": kid,
        "n": to_base64url_uint(n).decode(),
        "e": to_base64url_uint(e).decode(),
    }
