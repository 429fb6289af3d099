"""`python -m animations render|lecture`: lecture videos from the command line.

    python -m animations render --scene masking --preset default --quality low --out DIR
    python -m animations render --scene scores --config lesson.json --quality medium --out DIR
    python -m animations lecture --quality class --out media/lecture [--voice none] [--rate 0.8]

`lecture` renders every scene of the catalogue with the lesson a class sees (the trained scene reads
the example sentence; the induction scene its training run). `make lecture` does more: it prepares a
deck's whole class (animations/prepare.py).

Narrated by default (Piper's "joe" voice, a little slower than his own pace); `--voice none`
makes silent videos.
"""

import argparse
import sys
from pathlib import Path

from animations.catalog import QUALITIES, SCENES, lecture_lesson
from animations.render import DEFAULT_MEDIA, RenderError, export, progress_bar, render
from animations.voice import DEFAULT_RATE, DEFAULT_VOICE, MAX_RATE, MIN_RATE, VOICES, voice_from
from core import PRESETS, AttentionConfig, ConfigError


def _config(args) -> AttentionConfig:
    if args.config:
        return AttentionConfig.from_json(Path(args.config).read_text(encoding="utf-8"))
    return PRESETS[args.preset]


def _render_one(name, cfg, args) -> Path:
    movie = render(name, cfg, args.quality, on_progress=progress_bar(name), timeout=args.timeout, media_dir=args.media,
                   voice=voice_from(args.voice, args.rate))
    sys.stderr.write("\n")
    return export(movie, args.out, name)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m animations", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("render", help="render one scene")
    one.add_argument("--scene", required=True, choices=sorted(SCENES))
    source = one.add_mutually_exclusive_group()
    source.add_argument("--preset", default="default", choices=sorted(PRESETS))
    source.add_argument("--config", help="a JSON file of lesson settings (AttentionConfig.to_json)")
    lecture = sub.add_parser("lecture", help="render every scene with the lesson a class sees (make lecture also "
                             "trains the films and checks the deck: python -m animations.prepare)")
    for p in (one, lecture):
        p.add_argument("--quality", default="low", choices=list(QUALITIES),
                       help="; ".join(f"{name}: {q.label}" for name, q in QUALITIES.items()))
        p.add_argument("--out", type=Path, default=Path("media/lecture"))
        p.add_argument("--media", type=Path, default=DEFAULT_MEDIA, help="render cache folder")
        p.add_argument("--timeout", type=float, default=600.0, help="seconds per scene")
        p.add_argument("--voice", default=DEFAULT_VOICE, choices=[*VOICES, "none"],
                       help="the narrator, or none for a silent video")
        p.add_argument("--rate", type=float, default=DEFAULT_RATE,
                       help=f"speaking rate, 1.0 = the voice's own pace ({MIN_RATE} to {MAX_RATE})")
    args = parser.parse_args(argv)
    try:
        voice_from(args.voice, args.rate)
    except ValueError as err:
        parser.exit(2, f"{err}\n")
    try:
        if args.command == "render":
            print(_render_one(args.scene, _config(args), args))
        else:
            for name in SCENES:
                print(_render_one(name, lecture_lesson(name), args))
    except ConfigError as err:
        parser.exit(2, f"Bad lesson settings: {err}\n")
    except (RenderError, OSError) as err:
        parser.exit(1, f"\n{err}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
