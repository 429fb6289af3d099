"""From a caption (what the viewer reads) to the sentence the narrator speaks.

Piper reads letters, digits and a little punctuation; a symbol it does not know it skips or
spells out by its character name. `spoken(caption)` rewrites everything else into words:
"Q·Kᵀ / √d_k" -> "Q times K transposed over the square root of d k", "17%" -> "17 percent".
It speaks for a lecture hall, where a listener cannot see the quotes or read the digits back:
- a token quoted ‘like this’ is said as a token: "the word ‘on’", "the full stop", "the token 7";
- numbers are rounded for the ear: "0.9996" -> "nearly one", "0.123" -> "about zero point one
  two", "0.50" -> "zero point five", "16.7%" -> "about 17 percent";
- no code identifier is spoken: "F.scaled_dot_product_attention" is "PyTorch's attention function";
- a formula is said one way only: "diag(p) − p·pᵀ" -> "the diagonal matrix with p on its diagonal,
  minus the outer product of p with itself".
The result uses only SPEAKABLE characters. No manim, no Piper here.
"""

import re
import unicodedata

SPEAKABLE = re.compile(r"[A-Za-z0-9 ,.'?!:;()\-]*")  # what `spoken` may return
QUOTED = re.compile(r"‘(\S+?)’(?=[\s,.;:!?)]|$)")  # a token as captions quote it (tokens hold no spaces)
# Before these words a quoted token needs no "the word": "the piece ‘animal’" is already clear.
NAMED_BEFORE = re.compile(r"\b(?:word|token|piece|character|words|tokens|pieces|characters)\s*$", re.IGNORECASE)
DIGITS = "zero one two three four five six seven eight nine".split()
TOKEN_CHARS = 60  # a longer token is cut: the narrator does not read a paragraph of one "word"

PUNCTUATION = {".": "full stop", ",": "comma", "'": "apostrophe", "’": "apostrophe", "?": "question mark",
               "!": "exclamation mark", ";": "semicolon", ":": "colon", "-": "hyphen", "(": "opening bracket",
               ")": "closing bracket", '"': "quotation mark", "_": "underscore", "/": "slash", "%": "percent sign"}

def digits_after_point(text: str) -> str:
    return " ".join(DIGITS[int(d)] for d in text)


# Formulas and names, most specific first: (pattern, words)
NAMES = [
    # a bound a caption writes past two decimals ("over 0.9999"): said whole, since rounded for the
    # ear it would be "over nearly one"
    (r"\b([Oo]ver|[Uu]nder)\s+0\.(\d{3,})\b", lambda m: f" {'more' if m.group(1).lower() == 'over' else 'less'} "
     f"than zero point {digits_after_point(m.group(2))} "),
    (r"e\^\s*(?:−|-)\s*∞", " e to the minus infinity "),
    (r"(?:−|-)\s*∞", " minus infinity "),
    (r"∞", " infinity "),
    (r"√\s*\(?\s*d_k\s*\)?", " the square root of d k "),
    (r"√\s*(\d+)", r" the square root of \1 "),
    (r"√", " the square root of "),
    (r"(\d+|d_model|d_k)\s*×\s*(\d+|d_model|d_k)", r"\1 by \2"),  # a shape: "7 × 4" is "7 by 4"
    # diag(p) − p·pᵀ said so that it cannot be heard as diag(p − p·pᵀ)
    (r"\bdiag\((\w)\)\s*(?:−|-)\s*\1\s*·\s*\1ᵀ",
     r" the diagonal matrix with \1 on its diagonal, minus the outer product of \1 with itself "),
    # diag(p − ppᵀ) would sound the same as diag(p) − ppᵀ: say where the diagonal ends
    (r"\bdiag\(([^)]*)\)\s*(?:−|-)", r" the diagonal matrix with \1 on its diagonal, minus "),
    (r"\bdiag\(([^)]*)\)", r" the diagonal matrix with \1 on its diagonal "),
    # code names are said as what they are, never spelled out
    (r"(?:PyTorch's\s+)?`?(?:torch\.nn\.functional|F)\.scaled_dot_product_attention`?",
     " PyTorch's attention function "),
    (r"(?:PyTorch's\s+)?`?(?:torch\.)?nn\.MultiheadAttention`?", " PyTorch's multi-head attention module "),
    (r"(?:PyTorch's\s+)?\bSDPA\b", " PyTorch's attention function "),
    (r"\ball-MiniLM-L6-v2\b", " Mini L M "),
    (r"(?:\bthe\s+)?\[(CLS|SEP)\](?:\s+(?:token|piece))?",  # BERT's special pieces: "the C L S token"
     lambda m: " the " + " ".join(m.group(1)) + " token "),
    (r"d_model", " d model "),
    (r"d_k", " d k "),
    (r"\bW_([QKVO])\b", r" W \1 "),
    (r"\b([A-Za-z])_(ij|[a-z0-9]+)\b", r" \1 \2 "),
    (r"\b([a-z])\s*·\s*([a-z])\b", r" \1 dot \2 "),  # two vectors: a dot product
    (r"·", " times "),
    (r"ᵀ", " transposed "),
    (r"(\w)²", r"\1 squared "),
    (r"×", " times "),
    (r"÷", " divided by "),
    (r"≤", " at most "),
    (r"≥", " at least "),
    (r"≈", " about "),
    (r"≠", " is not "),
    (r"⇒", ", so "),
    (r"→", " becomes "),
    (r"…", " and so on "),
    (r"Σ", " the sum of "),
    (r"\s[—–]\s|[—–]", ", "),
    (r"(\d+\.\d+)\s*%", lambda m: f"{_about(float(m.group(1)), 0)} percent"),
    (r"(\d)\s*%", r"\1 percent"),
    (r"&", " and "),
    (r"\+", " plus "),
    (r"(?<=[A-Za-z])’(?=[A-Za-z])", "'"),  # an apostrophe inside a word: "lab’s"
    (r"\s=\s", " equals "),
    (r"\s<\s", " less than "),
    (r"\s>\s", " greater than "),
    (r"(?<=[\w)])\s*/\s*(?=[\w(√])", " over "),
]
NAMES = [(re.compile(p), words) for p, words in NAMES]
NUMBER = re.compile(r"(?<![\w.])([−-]?)(\d+(?:\.\d+)?)(?:e([−-]?\d+))?(?![\w.]\d)")


def _plain(number: str) -> str:
    """ "0.79" -> "zero point seven nine", "0.50" -> "zero point five", "12" -> "12": whole numbers
    stay digits (Piper reads them as words); a decimal is read digit by digit after the point."""
    whole, _, fraction = number.partition(".")
    fraction = fraction.rstrip("0")
    return (DIGITS[int(whole)] if len(whole) == 1 else whole) + (f" point {digits_after_point(fraction)}"
                                                                  if fraction else "")


def _about(value: float, places: int) -> str:
    """A number rounded for the ear: "nearly one" just under a whole number, "just over one"
    just above it, else "about" and the rounded value (a whole percentage: places=0)."""
    rounded = round(value, places)
    if rounded == value:
        return _plain(f"{value:.{places}f}")
    if rounded == int(rounded) and places > 0:
        return f"{'nearly' if value < rounded else 'just over'} {_plain(str(int(rounded)))}"
    return f"about {_plain(f'{rounded:.{places}f}')}"


def number_words(sign: str, number: str, exponent: str | None = None) -> str:
    """ "-0.79" -> "minus zero point seven nine"; "0.9996" -> "nearly one"; "1e-5" -> "ten to the
    minus 5". A decimal with more than two places is rounded to two, as a lecturer says it."""
    whole, _, fraction = number.partition(".")
    if exponent:
        power = exponent.replace("−", "-")
        words = "" if number == "1" else f"{_plain(number)} times "
        words += f"ten to the {'minus ' if power.startswith('-') else ''}{power.lstrip('-')}"
    elif len(fraction.rstrip("0")) > 2:
        words = _about(float(number), 2)
    else:
        words = _plain(number)
    return ("minus " if sign else "") + words


def token_said(caption: str, match: re.Match) -> str:
    """A quoted token as a listener can tell it from the sentence around it: "the word ‘on’",
    "the full stop", "the token 7"; after "word", "token" or "piece" just the token itself."""
    token = match.group(1)
    said = token_words(token)
    if NAMED_BEFORE.search(caption[:match.start()]):
        return f" {said.removeprefix('piece ') if token.startswith('##') else said} "
    if token.startswith("##") and said.startswith("piece "):  # "the word piece ing"
        return f" the word {said} "
    if said == "a symbol":  # a character without a name Piper could say
        return f" {said} "
    folded = unicodedata.normalize("NFKD", token).encode("ascii", "ignore").decode()
    if re.fullmatch(r"[A-Za-z]+(?:['’-][A-Za-z]+)*", folded) and len(folded) >= len(token) - 1:  # a word
        return f" the word {said} "
    if len(token) == 1 and not token.isalnum():  # one mark: "the full stop"
        return f" the {said} "
    return f" the token {said} "


def token_words(token: str) -> str:
    """How a token is said: a word as itself, a mark by its name ("." -> "full stop")."""
    token = token[:TOKEN_CHARS]
    if re.fullmatch(r"[A-Za-z0-9]+", token):
        return token
    if re.fullmatch(r"[A-Za-z]+(?:['’][A-Za-z]+)+", token):  # "don't": Piper reads the apostrophe
        return token.replace("’", "'")
    if re.fullmatch(r"##[A-Za-z0-9]+", token):  # a word piece that continues a word
        return f"piece {token[2:]}"
    parts = []
    for ch in token:
        folded = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
        if re.fullmatch(r"[A-Za-z0-9]", folded or "_"):
            parts.append(folded)
        else:
            parts.append(" " + _char_name(ch) + " ")
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _char_name(ch: str) -> str:
    if ch in PUNCTUATION:
        return PUNCTUATION[ch]
    name = unicodedata.name(ch, "")
    if not name or re.search(r"-[0-9A-F]{4,}$", name):  # "CJK UNIFIED IDEOGRAPH-4E2D": no
        return "a symbol"
    return re.sub(r"[^a-z ]", " ", name.lower()).strip()


def spoken(caption: str) -> str:
    """The words a narrator says for `caption`, in SPEAKABLE characters only."""
    caption = re.sub(r"\b([Rr]ow|[Cc]olumn)\s+(?=‘)", r"\1 of ", caption)  # "row ‘on’": the row of the word
    text = QUOTED.sub(lambda m: token_said(caption, m), caption)
    for pattern, words in NAMES:
        text = pattern.sub(words, text)
    text = NUMBER.sub(lambda m: number_words(*m.groups()), text)
    text = text.replace("−", " minus ").replace("_", " ")
    text = "".join(ch if SPEAKABLE.fullmatch(ch) else _unknown(ch) for ch in text)
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)  # ", ," from two rewrites side by side
    return text.strip(" ,;:")


def _unknown(ch: str) -> str:
    """A character no rule covers: quotes and marks vanish, anything else is named."""
    if unicodedata.category(ch)[0] in "PZC":
        return " "
    return f" {_char_name(ch)} "
