"""From a caption (what the viewer reads) to the sentence the narrator speaks.

Piper reads letters, digits and a little punctuation; a symbol it does not know it skips or
spells out by its character name. `spoken(caption)` rewrites everything else into words:
"Q·Kᵀ / √d_k" -> "Q times K transposed over the square root of d k", "0.79" -> "zero point
seven nine", "17%" -> "17 percent", and a token quoted ‘like this’ -> its spoken name ("."
-> "full stop"). The result uses only SPEAKABLE characters. No manim, no Piper here.
"""

import re
import unicodedata

SPEAKABLE = re.compile(r"[A-Za-z0-9 ,.'?!:;()\-]*")  # what `spoken` may return
QUOTED = re.compile(r"‘(\S+?)’(?=[\s,.;:!?)]|$)")  # a token as captions quote it (tokens hold no spaces)
DIGITS = "zero one two three four five six seven eight nine".split()
TOKEN_CHARS = 60  # a longer token is cut: the narrator does not read a paragraph of one "word"

PUNCTUATION = {".": "full stop", ",": "comma", "'": "apostrophe", "’": "apostrophe", "?": "question mark",
               "!": "exclamation mark", ";": "semicolon", ":": "colon", "-": "hyphen", "(": "opening bracket",
               ")": "closing bracket", '"': "quotation mark", "_": "underscore", "/": "slash", "%": "percent sign"}

# Formulas and names, most specific first: (pattern, words)
NAMES = [
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
    (r"\bdiag\(([^)]*)\)", r" the diagonal matrix of \1 "),
    (r"F\.scaled_dot_product_attention", " F dot scaled dot product attention "),
    (r"nn\.MultiheadAttention", " n n dot multi-head attention "),
    (r"\bSDPA\b", " S D P A "),
    (r"\ball-MiniLM-L6-v2\b", " all Mini L M L 6 v 2 "),  # the trained model's name, letter by letter
    (r"\[(CLS|SEP)\]", lambda m: " " + " ".join(m.group(1)) + " "),  # BERT's special pieces: "C L S"
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


def digits_after_point(text: str) -> str:
    return " ".join(DIGITS[int(d)] for d in text)


def number_words(sign: str, number: str, exponent: str | None = None) -> str:
    """ "-0.79" -> "minus zero point seven nine"; "1e-5" -> "1 times ten to the minus 5".

    Whole numbers stay digits (Piper reads them as words); a decimal is read digit by digit
    after the point, as lecturers read numbers off a slide.
    """
    whole, _, fraction = number.partition(".")
    words = (DIGITS[int(whole)] if len(whole) == 1 else whole) + (f" point {digits_after_point(fraction)}"
                                                                   if fraction else "")
    if exponent:
        power = exponent.replace("−", "-")
        words += f" times ten to the {'minus ' if power.startswith('-') else ''}{power.lstrip('-')}"
    return ("minus " if sign else "") + words


def token_words(token: str) -> str:
    """How a token is said: a word as itself, a mark by its name ("." -> "full stop")."""
    token = token[:TOKEN_CHARS]
    if re.fullmatch(r"[A-Za-z0-9]+", token):
        return token
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
    text = QUOTED.sub(lambda m: f" {token_words(m.group(1))} ", caption)
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
