"""`python -m dashboard.handout [DECK] [--out FILE]`: a deck's students' handout, one HTML file that opens
offline (classroom/handout.py builds it). `make handout` runs it on the default deck.

It lives here, not in classroom, because reading a deck needs what it may name of the front ends (the
pages, the scenes, the view names), and only the dashboard may import both lists.
"""

import argparse
import sys

from animations.catalog import SCENES, check_scene
from classroom.decks import DEFAULT_DECK, DeckError, Names, load_deck
from classroom.handout import write_handout
from dashboard.lesson.state import VIEW_NAMES
from dashboard.navigation import PAGES


def deck_names() -> Names:
    """What a deck may name: navigation's url paths, the catalogue's scenes and its rule of which scene
    draws which lesson, the address's view names."""
    return Names(frozenset(url for _, _, url, _ in PAGES), frozenset(SCENES), VIEW_NAMES, check_scene)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dashboard.handout", description=__doc__.split("\n")[0])
    parser.add_argument("deck", nargs="?", default=str(DEFAULT_DECK), help="a deck file (default: the lab's own)")
    parser.add_argument("--out", default="media/handout.html", help="where to write the handout")
    args = parser.parse_args(argv)
    try:
        deck = load_deck(args.deck, deck_names())
    except DeckError as err:  # the deck's own message names the screen and the field
        print(err, file=sys.stderr)
        return 2
    path = write_handout(deck, args.out)
    print(f"{path}: the handout of {deck.title!r}, {len(deck.screens)} screens.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
