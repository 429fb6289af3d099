"""`python -m animations.prepare` (what `make lecture` runs): everything a class needs, made before it and
offline, then one line per screen of the deck: ready, or why not.

What a deck's screens need, and where it is kept (all under the media folder, ATTENTION_LAB_MEDIA):
- every scene of the catalogue, narrated, at the chosen quality, for the lesson the class sees
  (`catalog.lecture_lesson`) and for each scene or video screen's own lesson: `renders/` (the Lecture
  page and a deck's scene screens play them from there), with Piper's speech in `tts/`; a copy of each
  video goes to `--out` (media/lecture) to play without the lab;
- every training run the deck shows or asks about (`deck_questions.films_needed`): `films/`, the store
  the Watch it learn page and the induction scene read, so neither trains during class;
- the trained model (MiniLM): its weights come from a pip package, so there is nothing to fetch; it is
  loaded once and reads the example sentence, so a broken install shows here, not in class.
Pages and lesson questions are computed live by core in milliseconds: a question screen is ready when
its question can be made (its answer key measured), a page screen when its page exists (checked when
the deck is read) and, for the trained heads, the model reads.

A second run finds everything made and only checks it: seconds.
"""

import argparse
import os
import sys
import time
from pathlib import Path

from animations.catalog import QUALITIES, SCENES, deck_names, lecture_lesson
from animations.render import (
    DEFAULT_TIMEOUT,
    RenderError,
    cache_dir,
    checked_request,
    export,
    progress_bar,
    render,
    speaking,
)
from animations.sections import steps
from animations.voice import DEFAULT_RATE, DEFAULT_VOICE, VOICES, voice_from
from classroom.catalogue import BY_URL
from classroom.deck_folder import deck_path
from classroom.deck_questions import films_needed, screen_question
from classroom.decks import DEFAULT_DECK, Deck, DeckError, load_deck
from classroom.films.store import FilmStore
from classroom.question import QuestionError
from core import ConfigError
from core.film import LearnSettings

MEDIA_ENV = "ATTENTION_LAB_MEDIA"  # jobs.media_dir's: the render workers read the class's films from it
RENDER_TIMEOUT = max(DEFAULT_TIMEOUT, 3600.0)  # a class-quality render on a busy machine; a failed one is reported


def videos(deck: Deck) -> list:
    """(scene, lesson) of every video the class plays: each scene's class lesson, then each scene or
    video screen's own, once each (a film's scene draws its film whatever the lesson). A scene whose
    lesson cannot be made (the trained model missing) is left out: its screens say why."""
    wanted = []
    for name in SCENES:
        try:
            wanted.append((name, lecture_lesson(name)))
        except ConfigError:
            continue
    wanted += [(s.scene, s.lesson) for s in deck.screens if s.kind in ("scene", "video") and not s.unready]
    seen, out = set(), []
    for scene, cfg in wanted:
        name, cfg, _ = checked_request(scene, cfg, "low")
        if (name, cfg.key()) not in seen:
            seen.add((name, cfg.key()))
            out.append((name, cfg))
    return out


def films(deck: Deck) -> list[LearnSettings]:
    """Every training run the deck's screens show or ask about, once each, in deck order."""
    out = []
    for screen in deck.screens:
        out += [s for s in films_needed(screen) if s not in out]
    return out


def model_problem() -> str:
    """'' when the trained model loads and reads the example sentence; else why not, in words."""
    from core import trained_trace

    try:
        trained_trace(lecture_lesson("trained").text)
    except ConfigError as err:
        return str(err)
    return ""


def movie_of(scene: str, cfg, quality: str, media: Path, voice):
    return cache_dir(scene, cfg, quality, media, voice) / f"{scene}.mp4"


def readiness(deck: Deck, quality: str, voice, media: Path, store: FilmStore, model=model_problem) -> list[str]:
    """Per screen, '' when it is ready, else why not (`voice`: the one speaking, None for silent)."""
    model_why = None  # asked once, and only if a screen reads the model

    def needs_model() -> str:
        nonlocal model_why
        model_why = model() if model_why is None else model_why
        return model_why

    out = []
    for s in deck.screens:
        why = ""
        if s.unready:  # its lesson could not be made here (the trained model): nothing else can be checked
            why = s.unready
        elif s.kind in ("scene", "video"):
            name, cfg, _ = checked_request(s.scene, s.lesson, quality)
            movie = movie_of(name, cfg, quality, media, voice)
            if not movie.is_file():
                why = f"the {name} video is not rendered at {quality} quality yet"
            elif s.kind == "scene" and s.step not in (names := [p.name for p in steps(movie)]):
                why = f"the {name} video has no step {s.step!r} (its steps: {', '.join(names)})"
        elif s.kind == "film":
            why = "" if store.has(s.film.key()) else "its training run is not trained yet"
        elif s.kind == "question":
            try:
                screen_question(s, store.load)
            except (QuestionError, ConfigError) as err:
                why = str(err)
        if not why and ((s.kind == "page" and BY_URL[s.page].needs_model) or s.lesson.source == "trained"):
            why = needs_model()
        out.append(why)
    return out


def line(screen, why: str) -> str:
    """One screen's line: number, kind, title, then ready or why not."""
    return f"{screen.number:>3}  {screen.kind:<8} {screen.title}: " + (f"NOT READY: {why}" if why else "ready")


def prepare(deck: Deck, quality: str, voice, media: Path, out: Path | None, say=print, train=None,
            render_one=render, timeout: float = RENDER_TIMEOUT) -> list[str]:
    """Train the deck's runs, render its videos (films first: the induction scene then draws the class's
    run instead of training its own), and return each screen's readiness."""
    store = FilmStore(media)
    for settings in films(deck):
        if store.has(settings.key()):
            continue
        say(f"training the {settings.layers}-layer run ({settings.steps} steps) …")
        if train is None:
            from core.learn import train
        store.save(train(settings))
    for scene, cfg in videos(deck):
        made = movie_of(scene, cfg, quality, media, speaking(voice)).is_file()
        if not made:
            say(f"rendering {scene} at {quality} quality …")
        try:
            movie = render_one(scene, cfg, quality, timeout=timeout, media_dir=media, voice=voice,
                               on_progress=None if made else progress_bar(scene))
        except (RenderError, OSError) as err:
            say(f"\n{scene}: could not be rendered: {str(err).splitlines()[0]}")
            continue
        if not made:
            sys.stderr.write("\n")  # after the progress bar
        name = scene if cfg == lecture_lesson_or_none(scene) else f"{scene}-{cfg.key()[:8]}"
        if out is not None and not _copied(movie, out / f"{name}.mp4"):
            export(movie, out, name)
    return readiness(deck, quality, speaking(voice), media, store)


def _copied(movie: Path, copy: Path) -> bool:
    """`copy` is already this render's copy (a warm run copies no class-quality video again)."""
    try:
        return copy.stat().st_size == movie.stat().st_size and copy.stat().st_mtime >= movie.stat().st_mtime
    except OSError:
        return False


def lecture_lesson_or_none(scene: str):
    try:
        return lecture_lesson(scene)
    except ConfigError:
        return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m animations.prepare", description=__doc__.splitlines()[0])
    parser.add_argument("--deck", type=deck_path, default=DEFAULT_DECK,
                        help="a deck file, or a deck's name in the teacher's folder (default: the lab's own)")
    parser.add_argument("--quality", default="class", choices=list(QUALITIES),
                        help="; ".join(f"{name}: {q.label}" for name, q in QUALITIES.items()))
    parser.add_argument("--media", type=Path, default=Path(os.environ.get(MEDIA_ENV, "media")),
                        help="the lab's media folder (renders, films, speech)")
    parser.add_argument("--out", type=Path, default=Path("media/lecture"), help="a copy of each video, to play alone")
    parser.add_argument("--voice", default=DEFAULT_VOICE, choices=[*VOICES, "none"])
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE)
    parser.add_argument("--check", action="store_true", help="only say what is ready; make nothing")
    args = parser.parse_args(argv)
    try:
        voice = voice_from(args.voice, args.rate)
        deck = load_deck(args.deck, deck_names())
    except (ValueError, DeckError) as err:
        parser.exit(2, f"{err}\n")
    media = args.media.resolve()
    os.environ[MEDIA_ENV] = str(media)  # the render workers' films folder is this one
    start = time.monotonic()
    if args.check:
        why = readiness(deck, args.quality, speaking(voice), media, FilmStore(media))
    else:
        why = prepare(deck, args.quality, voice, media, args.out)
    print(f"\n{deck.title} ({deck.name}): {len(deck.screens)} screens, {deck.minutes:g} minutes, "
          f"{args.quality} quality" + ("" if speaking(voice) else ", silent"))
    for screen, reason in zip(deck.screens, why, strict=True):
        print(line(screen, reason))
    ready = sum(not w for w in why)
    print(f"{ready} of {len(why)} screens ready ({time.monotonic() - start:.1f} s).")
    return 0 if ready == len(why) else 1


if __name__ == "__main__":
    sys.exit(main())
