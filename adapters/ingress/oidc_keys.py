"""Which RSA public keys of an issuer's key set may verify ID tokens at all.

PyJWT and ``cryptography`` build a key from any modulus and an exponent of 3 or more;
they do not judge its strength. This module does, from the public numbers alone:

- the modulus has 2048 bits or more (RFC 7518 §3.3), is odd and has no prime factor
  below 168 (a modulus with one is factored at sight);
- the public exponent is odd and at least 3 (with ``e = 1`` a "signature" is the
  message itself: anyone can sign);
- the modulus does not carry the ROCA fingerprint (Nemec, Sys, Svenda, Klinec, Matyas,
  "The Return of Coppersmith's Attack", CCS 2017): the Infineon RSA library built
  its primes as ``p = k·M + (65537^a mod M)`` with ``M`` a primorial, so every such
  modulus is a power of 65537 modulo ``M``, and such keys are factored in CPU-days to
  -years (Wycheproof marks them invalid). The test is the paper's discrete-log
  fingerprint: whether ``n`` lies in the subgroup that 65537 generates modulo the
  product of the primes up to 167 (a factor of ``M`` for every key size), decided by
  Pohlig-Hellman over the prime powers of that subgroup's order. A random modulus lies
  in it with probability below 2^-150 (see :func:`false_positive_bound`).
"""

from __future__ import annotations

from functools import cache
from math import lcm, prod

MIN_BITS = 2048
"""RFC 7518 §3.3: a key of 2048 bits or larger MUST be used with RS256."""

GENERATOR = 65537
"""The base of the Infineon library's primes."""

FINGERPRINT_PRIME_LIMIT = 167
"""The largest prime of the primorial every ROCA key size shares (the 39 primes of the
512-960-bit keys; the larger sizes use more primes, these among them)."""


def _primes_up_to(limit: int) -> tuple[int, ...]:
    sieve = [True] * (limit + 1)
    sieve[0:2] = [False, False]
    for i in range(2, int(limit**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = [False] * len(sieve[i * i :: i])
    return tuple(i for i, prime in enumerate(sieve) if prime)


def _order_mod(g: int, r: int) -> int:
    """The multiplicative order of ``g`` modulo the small prime ``r``."""
    g %= r
    power, order = g, 1
    while power != 1:
        power, order = power * g % r, order + 1
    return order


def _factor(n: int, primes: tuple[int, ...]) -> dict[int, int]:
    """``n`` as {prime: exponent} over ``primes`` (it must have no other factor)."""
    factors: dict[int, int] = {}
    for q in primes:
        while n % q == 0:
            factors[q] = factors.get(q, 0) + 1
            n //= q
    if n != 1:
        raise ArithmeticError(f"{n} has a factor above {primes[-1]}")
    return factors


class _Subgroup:
    """The subgroup 65537 generates modulo the primorial ``modulus``, as Pohlig-Hellman
    sees it: for each prime power ``q^k`` of its order, the cofactor ``order / q^k`` and
    every element of order dividing ``q^k`` that the subgroup holds."""

    def __init__(self, limit: int, generator: int) -> None:
        primes = _primes_up_to(limit)
        self.primes = primes
        self.modulus = prod(primes)
        # the order modulo a product of distinct primes is the lcm of the orders modulo each
        self.order = lcm(*(_order_mod(generator, r) for r in primes))
        self.components: list[tuple[int, frozenset[int]]] = []
        for q, k in _factor(self.order, primes).items():
            cofactor = self.order // q**k
            g_q = pow(generator, cofactor, self.modulus)  # generates the q-part, order q^k
            self.components.append(
                (cofactor, frozenset(pow(g_q, i, self.modulus) for i in range(q**k)))
            )

    def holds(self, n: int) -> bool:
        """Whether ``n`` is a power of the generator modulo :attr:`modulus`."""
        if pow(n, self.order, self.modulus) != 1:
            return False  # not even of an order the subgroup has (or not a unit)
        # n is in the subgroup iff each of its q-parts is in the subgroup's q-part; raising
        # to the cofactor maps the q-part onto itself and kills every other part
        return all(pow(n, cofactor, self.modulus) in part for cofactor, part in self.components)


@cache
def _fingerprint() -> _Subgroup:
    return _Subgroup(FINGERPRINT_PRIME_LIMIT, GENERATOR)


def roca_fingerprint(n: int) -> bool:
    """Whether the modulus ``n`` carries the ROCA fingerprint (the Infineon library's
    structure), by the discrete-log test of the paper."""
    return n > 2 and _fingerprint().holds(n)


def false_positive_bound() -> float:
    """The share of units modulo the primorial that lie in the fingerprint's subgroup:
    the chance that a modulus of random primes is taken for a ROCA one."""
    group = _fingerprint()
    totient = prod(r - 1 for r in group.primes)
    return group.order / totient


def weakness(n: int, e: int) -> str | None:
    """Why the RSA public key ``(n, e)`` may not verify signatures, or None."""
    if n.bit_length() < MIN_BITS:
        return f"RSA key of {n.bit_length()} bits, under the {MIN_BITS} that RS256 requires"
    if n % 2 == 0:
        return "RSA modulus is even"
    if e < 3 or e % 2 == 0:
        shown = e if e < 2**32 else f"of {e.bit_length()} bits"
        return f"RSA public exponent {shown}: it must be odd and at least 3"
    if e >= n:
        return "RSA public exponent is not below the modulus"
    small = next((r for r in _fingerprint().primes if n % r == 0), None)
    if small is not None:
        return f"RSA modulus has the small factor {small}"
    if roca_fingerprint(n):
        return "RSA modulus has the ROCA fingerprint (factorable: CVE-2017-15361)"
    return None
