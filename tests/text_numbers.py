"""Where the lab's texts are and how a number in them is found: the sentences a lecturer reads
(pages, guided notes, video captions and narration, the lecture deck's notes). Used by
tests/test_numbers_said.py; no test here."""

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"(?<![\w.\-])(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w])%?")  # 30,522 is one number
LATEX = re.compile(r"\\[a-zA-Z]+|[_^]\{")  # st.latex's formulas: symbols, not sentences
PROSE = re.compile(r"[A-Za-z]{3,}.*\s|\s.*[A-Za-z]{3,}")  # a string with a word and a space: text, not a key


def text_files() -> list[Path]:
    pages = sorted((ROOT / "dashboard" / "app_pages").glob("*.py"))
    scenes = sorted((ROOT / "animations" / "scenes").glob("*.py"))
    return [*pages, *scenes, ROOT / "animations" / "catalog.py", ROOT / "core" / "guided_heads.py",
            ROOT / "classroom" / "decks" / "default.toml"]


def _docstrings(tree) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {id(n.body[0].value) for n in ast.walk(tree) if isinstance(n, kinds) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def literal_texts(path: Path) -> list[str]:
    """The literal text of every prose string in a Python file (an f-string's literal parts, never
    what its fields format), docstrings and comments left out; or a deck's notes."""
    if path.suffix == ".toml":
        deck = tomllib.loads(path.read_text(encoding="utf-8"))
        return [screen.get("notes", "") for screen in deck.get("screen", [])]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for part in node.values:  # the literal parts; the fields are formatted from values
                if isinstance(part, ast.Constant):
                    docs.add(id(part))
                    texts.append(part.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            texts.append(node.value)
    return [t for t in texts if PROSE.search(t) and not LATEX.search(t)]


def numbers_in(path: Path) -> list[str]:
    """Each number of the file's texts with the word before it ("least 0.99", "of 72"): the key a
    number is listed under, so that another number in its place is a new, unlisted one."""
    found = []
    for text in literal_texts(path):
        for m in NUMBER.finditer(text):
            before = re.findall(r"[^\s(“‘]+", text[:m.start()])
            found.append(f"{before[-1] if before else ''} {m.group()}".strip())
    return found
