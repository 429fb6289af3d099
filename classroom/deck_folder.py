"""A teacher's own decks: a folder of deck files (ATTENTION_LAB_DECKS, else `decks/` at the lab's root), offered by
name beside the lab's own (classroom/decks/). `python -m classroom.deck_folder NAME` (what `make deck NAME=...`
runs) starts one: a copy of the lab's default deck, NAME.toml in that folder.

A deck is named by its file's name without ".toml", and only a name of NAME's form (lowercase letters, digits and
"-", at most 40) is one: a link or a command names a deck by that name, which is looked up in the folder's listing,
so no string a visitor sends becomes a path. The lab's own names win: "default" is always the lab's deck. The
folder is read when it is asked for (importing this module reads nothing), a file at a time, at most MAX_DECKS.
"""

import os
import re
import shutil
import sys
from pathlib import Path

from classroom.decks import DEFAULT_DECK

FOLDER_ENV = "ATTENTION_LAB_DECKS"
DEFAULT_FOLDER = Path(__file__).resolve().parent.parent / "decks"  # the lab's root (a checkout's)
NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
MAX_DECKS = 100
LAB_DECKS = {path.stem: path for path in sorted(DEFAULT_DECK.parent.glob("*.toml"))}  # the lab's own decks


def folder() -> Path:
    """The teacher's deck folder, as the environment names it now."""
    return Path(os.environ.get(FOLDER_ENV) or DEFAULT_FOLDER)


def teachers() -> dict[str, Path]:
    """The teacher's decks by name: the folder's `NAME.toml` files (a name the lab's decks have is theirs)."""
    out = {}
    try:
        entries = sorted(entry.name for entry in os.scandir(folder()))
    except OSError:  # no folder: no decks of the teacher's
        return out
    for entry in entries:
        stem, dot, ending = entry.rpartition(".")
        if dot and ending == "toml" and NAME.fullmatch(stem) and stem not in LAB_DECKS:
            out[stem] = folder() / entry
            if len(out) >= MAX_DECKS:
                break
    return out


def listing() -> dict[str, Path]:
    """Every deck the lab offers, by name: its own, then the teacher's."""
    return {**LAB_DECKS, **teachers()}


def deck_path(given: str) -> Path:
    """A command's DECK: a deck's name ("week-3") when it is one of the listing's, else a file's path as typed."""
    return listing().get(given) or Path(given)


def new_deck(name: str) -> Path:
    """Copy the lab's default deck to NAME.toml in the teacher's folder (made if need be); ValueError, in words,
    for a name that is none or a file that is there already."""
    if not NAME.fullmatch(name):
        raise ValueError(f"a deck's name is lowercase letters, digits and '-', at most 40 (such as 'week-3'); got "
                         f"{name[:60]!r}.")
    if name in LAB_DECKS:
        raise ValueError(f"{name!r} is the name of the lab's own deck; choose another.")
    target = folder() / f"{name}.toml"
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(target, "xb") as out, open(DEFAULT_DECK, "rb") as source:  # "x": never over a teacher's file
            shutil.copyfileobj(source, out)
    except FileExistsError:
        raise ValueError(f"{target} is there already; edit it, or choose another name.") from None
    return target


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m classroom.deck_folder NAME   (make deck NAME=week-3)", file=sys.stderr)
        return 2
    try:
        path = new_deck(args[0])
    except (ValueError, OSError) as err:
        print(f"No deck made: {err}", file=sys.stderr)
        return 2
    print(f"{path}: a copy of the lab's default deck. Edit it (docs/decks.md), then `make lecture DECK={args[0]}`; "
          f"the Present page offers it as deck={args[0]}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
