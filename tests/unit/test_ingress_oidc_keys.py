"""The key checks of the front door's key set: the ROCA fingerprint (the discrete-log
test of "The Return of Coppersmith's Attack") on published and constructed moduli, and
the other weaknesses that keep a key from verifying anything."""

from __future__ import annotations

from math import prod

from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.ingress.oidc_keys import (
    MIN_BITS,
    false_positive_bound,
    roca_fingerprint,
    weakness,
)
from tests.oidc_keys import roca_key

# Moduli from the ROCA detector's own test data (github.com/crocs-muni/roca, MIT):
# mod03 is a 2048-bit key from a vulnerable Infineon chip, mod04 a sound one.
MOD03 = int(
    "9dcd7420e420c270a68060eb8b5aa7457a9f6648f86fafed2775cc1f79ae962f1e63f1b9e51c55f9ea6fdc"
    "7332e9b0058c9ff2eb1fc89855029cf6aafe21e689feb38ac9ffb12f1ce371bb5d0e9aae64161abce74b42"
    "44bf68f1edb4411f756a097c8929c14740245ea355f8332d1aa36bb50c7dcb4505da8de02e4e53d38f8df0"
    "6097da7524df0df93db48eac8cc4af2d3a16257eb2b2adca6ba464e5974fa92550d31b1babf161e7692d00"
    "b86e3dd886ecab4abfbe1a8f8cc263ff4af55cdb45f4249a5193925f5e983d762f0b6800943eb0267b08f4"
    "2ed311ce1f5c86eacbc8ce4d3cb7a2fee1ef5641423a1cf4114e5ecf50034a60a412523af9e6f4aa11",
    16,
)
MOD04 = int(
    "af659676197f1db06da7ac111a0a0ec175b8b7ef07192ffcd1f6b854c327785f1a7fd3db7da45cd4a31b2b"
    "2e5ce0d823a68e28c8adf1747316becce1fe5768064039ad2062260c8d1a34e0586dce9bc13090fcc9fb8b"
    "8b2c08ed3ae8d61b29818a669689a7d9c1dab053b557fb8d3f9c44faad3e18c55e739b00d3c9126558bc8e"
    "980cd2af377126ef5b1374136774b8bd370e3c1c149db395c8f99696b628b105946fea20106fe24d103ac0"
    "62661a9248e8c3f628e00b308d33953aabe555132e218e74ef4b578716b4fe7cf340e8e604a319bf6e9951"
    "e1942601d34291032db54999d09e5d036dde3544ad35256bbb97d5e3fffd38166c21eae9199548853b",
    16,
)
MOD01 = int(
    "944e13208a280c37efc31c3114485e590192adbb8e11c87cad60cdef0037ce99278330d3f471a2538fa667"
    "802ed2a3c44a8b7dea826e888d0aa341fd664f7fa7",
    16,
)
"""A 512-bit positive sample: the fingerprint does not depend on the key's size."""
FAKE = (
    72414128973967872688332736535017614208620368242015797102796086827882754006260204061799547004983731426777596445658889886861027045033760014948048067467947960318205453778973975867532910489227970143091184725760290172935872752222320334100097730483600892686353719855397381316384244147860260153198611313067061116317,
    138345973265163614694352477004469191286459111070564516299381495188624946671065451924677704628892476011773201612117597303315530745738015579159106259811204610647347662150159814774894784524366138220226431598991937057442020694466365850170057813627445465881816985939192840583168136876337135351417253708364245923133,
    60828061238058485055546209519792949600733446820687109700021551748017165461584398468231416589035982737511901116540885252089750919566836183252857475484338913841291095222387779067564971983760619814471104385614285949705697261702933899278537712383849527252611987939947273446907728942539157463443880598175266703887,
)
"""The detector's "fake" moduli: modulo each small prime alone a power of 65537, but
not modulo their product. The residue-mask test of the first detector flags them; the
discrete-log test must not."""
PRIMES: tuple[int, ...] = (
    2,
    3,
    5,
    7,
    11,
    13,
    17,
    19,
    23,
    29,
    31,
    37,
    41,
    43,
    47,
    53,
    59,
    61,
    67,
    71,
    73,
)
PRIMES += (79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163)
PRIMES += (167,)
M = prod(PRIMES)
PARTIAL = [r for r in PRIMES if len({pow(65537, i, r) for i in range(r)}) < r - 1]
"""The small primes modulo which 65537 does not generate every unit."""


def _masked_by_each_prime(n: int) -> bool:
    """The first detector's test: ``n`` mod each small prime is some power of 65537."""
    return all(n % r in {pow(65537, i, r) for i in range(r)} for r in PRIMES)


def test_the_published_roca_moduli_are_found_and_the_sound_one_is_not() -> None:
    assert roca_fingerprint(MOD03) and roca_fingerprint(MOD01)
    assert not roca_fingerprint(MOD04)
    assert weakness(MOD03, 65537) == (
        "RSA modulus has the ROCA fingerprint (factorable: CVE-2017-15361)"
    )
    assert weakness(MOD04, 65537) is None


def test_the_test_is_the_discrete_log_one_not_the_residue_masks() -> None:
    for n in FAKE:
        assert _masked_by_each_prime(n), "the fake passes the per-prime masks"
        assert not roca_fingerprint(n)


def test_a_key_made_as_the_infineon_library_made_them_is_found() -> None:
    n = roca_key().public_key().public_numbers().n
    assert n.bit_length() == 2048 and roca_fingerprint(n)
    assert "ROCA" in (weakness(n, 65537) or "")


def test_freshly_generated_keys_are_not_taken_for_roca_ones() -> None:
    for _ in range(4):
        n = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
        assert not roca_fingerprint(n.public_numbers().n)
        assert weakness(n.public_numbers().n, 65537) is None
    assert false_positive_bound() < 2**-150  # the paper: about 2^-154 for random moduli


@settings(max_examples=200, deadline=None)
@given(a=st.integers(min_value=0, max_value=2**80), k=st.integers(min_value=1, max_value=2**1800))
def test_every_power_of_65537_modulo_the_primorial_is_found(a: int, k: int) -> None:
    assert roca_fingerprint(k * M + pow(65537, a, M))


@settings(max_examples=200, deadline=None)
@given(
    a=st.integers(min_value=0, max_value=2**80),
    k=st.integers(min_value=1, max_value=2**1800),
    r=st.sampled_from(PARTIAL),
)
def test_a_residue_off_the_subgroup_modulo_one_prime_is_not_found(a: int, k: int, r: int) -> None:
    power = pow(65537, a, M)
    members = {pow(65537, i, r) for i in range(r)}
    off = next(x for x in range(1, r) if x not in members)
    # change the residue modulo r only (CRT), keeping every other prime's
    shift = (off - power) % r * pow(M // r, -1, r) * (M // r)
    assert not roca_fingerprint(k * M + (power + shift) % M)


def test_short_keys_and_bad_exponents_are_weak() -> None:
    sound = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    n = sound.public_numbers().n
    assert weakness(n, 65537) is None and weakness(n, 3) is None
    short = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key()
    assert "1024 bits" in (weakness(short.public_numbers().n, 65537) or "")
    assert weakness(2 ** (MIN_BITS - 1) + 1, 65537) is not None  # 2048 bits, divisible by 3
    for e in (-1, 0, 1, 2, 4, 65536, n, n + 2):
        assert weakness(n, e) is not None, e
