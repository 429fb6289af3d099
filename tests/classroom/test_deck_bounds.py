"""What a deck file may cost before it is read: tomllib never gets a key of more dotted parts than a deck
nests (it spends n² on one), nor more settings than a deck holds; only a regular file is opened for reading
(a FIFO would block); a file is read once until it changes, a refusal too (classroom/deck_file.py,
classroom/deck_scan.py)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from classroom import decks
from classroom.deck_file import MAX_KEY_PARTS
from classroom.deck_scan import MAX_KEYS
from classroom.decks import DeckError, load_deck, parse_deck

from .test_deck_files import PAGE, deck, refused

ROOT = Path(__file__).resolve().parents[2]

# tomllib keeps every prefix of a dotted key: a 40 KB key of "a.a.a..." took 37 s and 1.9 GB, an 80 KB one ended
# in a MemoryError. These are refused by the scan before tomllib reads the file (which here would fail the test).
DOTTED = {
    "40 KB key": "a" + ".a" * 20_000 + " = 1",
    "80 KB key": "a" + ".a" * 40_000 + " = 1",
    "80 KB table name": "[" + ".".join(["a"] * 40_000) + "]\nb = 1",
    "quoted and spaced parts": " . ".join(['"a"', "'b'", "c"] * 5_000) + " = 1",
    "80 KB inside a screen": "[[screen]]\n" + "lesson" + ".d" * 40_000 + " = 1",
}


@pytest.fixture
def tomllib_must_not_read(monkeypatch):
    def refuse(text, **kwargs):
        raise AssertionError("tomllib was given the file")

    monkeypatch.setattr("classroom.deck_file.tomllib.loads", refuse)


@pytest.mark.parametrize("text", DOTTED.values(), ids=DOTTED)
def test_a_long_dotted_key_is_refused_before_tomllib_reads_the_file(deck_names, tmp_path, tomllib_must_not_read,
                                                                    text):
    path = tmp_path / "dotted.toml"
    path.write_text(deck(PAGE) + text + "\n", encoding="utf-8")
    with pytest.raises(DeckError) as caught:
        load_deck(path, deck_names)
    line = deck(PAGE).count("\n") + 1 + text.startswith("[[screen]]")
    assert str(caught.value) == (f"Line {line} of the deck file 'dotted.toml' names a key of more than "
                                 f"{MAX_KEY_PARTS} dotted parts: its tables would nest deeper than a deck needs.")


def test_more_settings_than_a_deck_holds_are_refused_before_tomllib_reads_the_file(deck_names, tomllib_must_not_read):
    err = refused(deck_names, deck(PAGE) + "".join(f"k{i} = {i}\n" for i in range(MAX_KEYS)))
    assert err.screen == 0 and f"more than {MAX_KEYS:,} settings" in str(err)


def test_dots_in_strings_comments_and_numbers_are_no_key(deck_names):
    dots = ".".join("abcdefghij")
    text = deck(PAGE + f'notes = """{dots} \\""" {dots}"""\nhandout = \'{dots}\' # {dots}\n'
                + "lesson = { temperature = 1.5 }\nview.step = 2\n")
    loaded = parse_deck(text, "dots.toml", deck_names)
    assert loaded.screens[0].notes == f'{dots} """ {dots}' and loaded.screens[0].lesson.temperature == 1.5


def test_a_fifo_is_refused_at_once_by_make_handout(tmp_path):
    """A FIFO given as DECK: `open` itself would wait for a writer for ever (the timeout only guards the test)."""
    fifo = tmp_path / "deck.toml"
    os.mkfifo(fifo)
    run = subprocess.run([sys.executable, "-m", "animations.handout", str(fifo), "--out", str(tmp_path / "h.html")],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip() == "The deck file 'deck.toml' cannot be read (it is not a file)."
    assert not (tmp_path / "h.html").exists()


def test_a_device_is_refused_without_reading_it(deck_names):
    with pytest.raises(DeckError, match="cannot be read \\(it is not a file\\)"):
        load_deck("/dev/zero", deck_names)


def test_a_refused_file_is_read_once_until_it_changes(deck_names, tmp_path, monkeypatch):
    parsed = []
    monkeypatch.setattr(decks, "parse_deck", lambda *args, **kw: parsed.append(args[1]) or parse_deck(*args, **kw))
    path = tmp_path / "bad.toml"
    path.write_text(deck(PAGE.replace("minutes = 2", 'minutes = "five"')), encoding="utf-8")
    messages = []
    for _ in range(3):
        with pytest.raises(DeckError) as caught:
            load_deck(path, deck_names)
        messages.append((str(caught.value), caught.value.screen, caught.value.field))
    assert len(parsed) == 1 and len(set(messages)) == 1 and messages[0][1:] == (1, "minutes")
    path.write_text(deck(PAGE), encoding="utf-8")  # edited: a new size, read again
    assert load_deck(path, deck_names).screens[0].minutes == 2 and len(parsed) == 2
    assert load_deck(path, deck_names).screens[0].minutes == 2 and len(parsed) == 2
