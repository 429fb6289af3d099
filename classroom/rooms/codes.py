"""Room codes, teacher secrets and PINs: who may join a room, and who may run it.

- The room code is public (projected, in the QR code): 8 symbols of Crockford's base 32
  (digits and letters without I, L, O, U), typed as ABCD-2345, 32^8 = 2^40 ≈ 1.1e12 codes,
  drawn with `secrets`. Why that is enough at the rate the server allows: `base.py`.
- The teacher's secret is a 256-bit `secrets.token_urlsafe`, held only in the teacher's
  session; the registry keeps its SHA-256 (a high-entropy token needs no slow hash).
- The PIN the teacher chooses when opening is stored only as a salted scrypt hash (RFC 7914,
  N = 2^14, r = 8, p = 1: 16 MiB and ~0.1–0.2 s per try here) and compared in constant time.
"""

import hashlib
import hmac
import re
import secrets
import unicodedata

CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base 32
CODE_LENGTH = 8
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})  # Crockford's decoding rules
MIN_PIN, MAX_PIN = 6, 64
SCRYPT_N = 2**14
_SESSION = re.compile(r"[A-Za-z0-9_-]{8,64}")


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text) -> str | None:
    """A typed code in its stored form ("abcd 2345", "ABCD-2345" -> "ABCD2345"), or None if it cannot be one."""
    if not isinstance(text, str) or len(text) > 4 * CODE_LENGTH:
        return None
    code = text.strip().upper().translate(_READ_AS)
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def format_code(code: str) -> str:
    """ "ABCD2345" -> "ABCD-2345", easier to read off a projector and type on a phone."""
    return f"{code[:4]}-{code[4:]}"


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def secret_hash(secret) -> str:
    """SHA-256 of the teacher's secret ("" for anything that is not a string: it matches no room)."""
    if not isinstance(secret, str) or not secret or len(secret) > 256:
        return ""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def valid_session(session) -> bool:
    """A browser session id as the pages make them (uuid4().hex): letters, digits, - and _."""
    return isinstance(session, str) and _SESSION.fullmatch(session) is not None


def pin_problem(pin) -> str:
    """'' when `pin` can be a room's PIN, else what is wrong with it, in the teacher's words."""
    if not isinstance(pin, str) or not (MIN_PIN <= len(pin) <= MAX_PIN):
        return f"Choose a PIN of {MIN_PIN} to {MAX_PIN} characters (digits are fine)."
    if any(unicodedata.category(c)[0] == "C" for c in pin):
        return "The PIN may not contain control characters."
    return ""


def _kdf(pin: str, salt: bytes, n: int) -> bytes:
    data = unicodedata.normalize("NFKC", pin).encode("utf-8")  # the same PIN from a phone or a laptop keyboard
    return hashlib.scrypt(data, salt=salt, n=n, r=8, p=1, dklen=32, maxmem=64 * 1024 * 1024)


def hash_pin(pin: str, n: int = SCRYPT_N) -> str:
    """ "scrypt$N$salt$hash" (hex): what a room stores instead of its PIN."""
    salt = secrets.token_bytes(16)
    return f"scrypt${n}${salt.hex()}${_kdf(pin, salt, n).hex()}"


def verify_pin(pin, record: str) -> bool:
    """Whether `pin` is the one `record` was made from; constant-time in the comparison."""
    if pin_problem(pin):
        return False
    try:
        kind, n, salt, digest = record.split("$")
        ok_kind = kind == "scrypt"
        actual = _kdf(pin, bytes.fromhex(salt), int(n))
        return hmac.compare_digest(actual, bytes.fromhex(digest)) and ok_kind
    except (ValueError, AttributeError):
        return False
