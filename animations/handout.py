"""`python -m animations.handout [DECK] [--out FILE]`: a deck's students' handout, one HTML file that opens
offline (classroom/handout.py builds it). `make handout` runs it on the default deck, or DECK (a file, or a
deck's name in the teacher's folder, classroom/deck_folder.py).

It lives here, not in classroom, because reading a deck needs what it may name (animations/catalog.py's
deck_names): the scenes are animations' and classroom sits below it.
"""

import argparse
import sys

from animations.catalog import deck_names
from animations.transcripts import transcripts
from classroom.deck_folder import deck_path
from classroom.deck_questions import screen_question
from classroom.decks import DEFAULT_DECK, DeckError, load_deck
from classroom.films.store import FilmStore
from classroom.handout import write_handout
from classroom.question import QuestionError
from jobs import media_dir


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m animations.handout", description=__doc__.split("\n")[0])
    parser.add_argument("deck", nargs="?", default=str(DEFAULT_DECK),
                        help="a deck file, or a deck's name in the teacher's folder (default: the lab's own)")
    parser.add_argument("--out", default="media/handout.html", help="where to write the handout")
    args = parser.parse_args(argv)
    try:
        deck = load_deck(deck_path(args.deck), deck_names())
    except DeckError as err:  # the deck's own message names the screen and the field
        print(err, file=sys.stderr)
        return 2
    path = write_handout(deck, args.out, transcripts=transcripts)
    print(f"{path}: the handout of {deck.title!r}, {len(deck.screens)} screens.")
    film_of = FilmStore(media_dir()).load  # as the handout read them
    for s in (s for s in deck.screens if s.kind == "question"):
        try:
            screen_question(s, film_of)
        except QuestionError as err:  # the handout says only that it is not printed: why is the teacher's
            print(f"screen {s.number}: its question is not printed: {err}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
