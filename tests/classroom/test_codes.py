"""Room codes, teacher secrets and PINs."""

import hashlib
from collections import Counter

from classroom.rooms.codes import (
    CODE_ALPHABET,
    format_code,
    hash_pin,
    new_code,
    new_secret,
    normalise_code,
    pin_problem,
    secret_hash,
    valid_session,
    verify_pin,
)


def test_codes_use_crockford_base32_and_read_back_as_typed():
    codes = [new_code() for _ in range(2000)]
    assert len(set(codes)) == 2000 and all(len(c) == 8 for c in codes)
    assert set("".join(codes)) <= set(CODE_ALPHABET) and len(CODE_ALPHABET) == 32
    assert not set("ILOU") & set(CODE_ALPHABET)
    counts = Counter("".join(codes))  # 16,000 symbols: each of 32 should appear ~500 times
    assert min(counts.values()) > 350 and max(counts.values()) < 650
    assert normalise_code(" abcd-2345 ") == normalise_code("ABCD2345") == "ABCD2345"
    assert normalise_code("o1l1-iiii") == "0111" + "1111"  # O reads as 0, I and L as 1 (Crockford)
    for bad in ("ABCD234", "ABCD23456", "ABCD-234U", "", None, 12345678, "A" * 1000):
        assert normalise_code(bad) is None
    assert format_code("ABCD2345") == "ABCD-2345"


def test_secrets_are_long_and_only_their_hash_is_kept():
    s = new_secret()
    assert len(s) >= 43 and s != new_secret()
    assert secret_hash(s) == hashlib.sha256(s.encode()).hexdigest()
    assert secret_hash("") == secret_hash(None) == secret_hash(42) == ""


def test_pin_records_are_salted_scrypt():
    a, b = hash_pin("123456", n=16), hash_pin("123456", n=16)
    assert a != b and "123456" not in a  # a fresh salt each time
    kind, n, salt, digest = a.split("$")
    expected = hashlib.scrypt(b"123456", salt=bytes.fromhex(salt), n=16, r=8, p=1, dklen=32)
    assert (kind, n, digest) == ("scrypt", "16", expected.hex())
    assert verify_pin("123456", a) and not verify_pin("123457", a) and not verify_pin("123456", "garbage")
    assert verify_pin("１２３４５６", a)  # full-width digits from a phone keyboard are the same PIN (NFKC)
    assert pin_problem("12345") and pin_problem("x" * 65) and pin_problem("123\x00456") and not pin_problem("123456")


def test_session_ids():
    assert valid_session("0f" * 16) and not valid_session("short") and not valid_session("a b c d e f g h")
