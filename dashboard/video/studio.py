"""Lecture videos inside the dashboard: one render service for every browser session.

The service (animations.service.make_service: in this process, or the hall's RQ workers) queues
renders, shares identical requests, caps its disk cache and survives restarts; this module holds
one per server and draws its state: a render button with a quality choice (fast 480p or class
1080p, each with its expected wait), a narration toggle and a progress bar, the finished video
(with sound, and its caption in a band beneath: dashboard.video.player) labelled with the lesson it
shows, a retry on failure.
Settings (environment): ATTENTION_LAB_MEDIA (cache folder, default `media`),
ATTENTION_LAB_CACHE_GB (cap, default 2), ATTENTION_LAB_RENDER_WORKERS (default cores - 1).
"""

import functools
import importlib.util
from pathlib import Path

import streamlit as st

from animations.catalog import (
    DESCRIPTIONS,
    FILMS,
    LECTURE,
    QUALITIES,
    TRAINED,
    duration_text,
    render_seconds,
)
from animations.service import RenderService, make_service
from animations.voice import DEFAULT_RATE, NARRATOR, Voice, missing
from core import AttentionConfig, ConfigError
from dashboard import devices
from dashboard.lesson import rerun
from dashboard.process import Held
from dashboard.video import player
from jobs import QueueFull

POLL_SECONDS = 1.0
RATES = {0.7: "slower", DEFAULT_RATE: "a lecture hall's pace (default)", 1.0: "the voice's own pace"}
RATE_LABELS = {r: f"{r:g}×" for r in RATES}
TEXT_SHOWN = 40  # characters of a lesson's sentence in a video's label
CHOICES = ("low", "class")  # the qualities offered: quick, and for a projector
QUALITY_LABELS = {q: QUALITIES[q].label.split(" (")[0] for q in CHOICES}


@functools.cache
def videos_available() -> str:
    """'' when videos can be rendered here, else what to install (looked up once per process)."""
    if importlib.util.find_spec("manim") is None:
        return "Videos need manim, which is not installed: run `make run` (it installs it) or `pip install manim`."
    return ""


service: Held[RenderService] = Held(make_service)  # not a Streamlit cache (dashboard/process.py)


def session_id() -> str:
    """This session's key (not kept in st.session_state, which a clear_cache message empties)."""
    return devices.session_key()


def chosen_voice() -> Voice | None:
    """The narration this session asked for (toggle and rate beside the render button)."""
    if not st.session_state.get("studio_voice", True) or missing():
        return None
    return Voice(rate=st.session_state.get("studio_rate", DEFAULT_RATE))


def chosen_quality() -> str:
    """The quality this session asked for beside the render button (fast 480p unless changed)."""
    quality = st.session_state.get("studio_quality", "low")
    return quality if quality in CHOICES else "low"


def wait_text(scene: str, quality: str) -> str:
    """The expected wait for one render, from the benchmark's figures, e.g. 'about 4 min'."""
    seconds = render_seconds(scene, quality)
    return duration_text(seconds) if seconds else "time not measured"


def request(scene: str, cfg: AttentionConfig, slot: str, shared: bool = False, voice: Voice | None = NARRATOR,
            quality: str = "low"):
    """Start (or join) the render of `scene` for `cfg`; its job is remembered under `slot`.

    `shared`: a render for everyone (the default lesson), not counted against this session.
    """
    try:
        job = service().submit(scene, cfg, quality, session="" if shared else devices.who(), voice=voice)
    except (ConfigError, QueueFull, KeyError, ValueError) as err:
        st.session_state[f"studio_msg_{slot}"] = str(err).strip("'\"")
        return
    st.session_state.pop(f"studio_msg_{slot}", None)
    st.session_state[f"studio_job_{slot}"] = job


def request_mine(scene: str, cfg: AttentionConfig, slot: str):
    """A render for this session, narrated as its toggle says, at the quality it chose."""
    request(scene, cfg, slot, voice=chosen_voice(), quality=chosen_quality())


def play(movie: Path, key: str, heading: str = ""):
    """The video with its sound, its caption in a band beneath (not over the grids)."""
    player.play(movie, key=f"band_{key}", heading=heading)


def describe(cfg: AttentionConfig) -> str:
    """A lesson in one line of plain text, e.g. '"The cat sat on the mat." · d_model 16 · 4 heads · causal mask'."""
    if cfg.source in ("text", "trained"):
        text = " ".join(cfg.text.split())
        what = f"“{text[:TEXT_SHOWN]}{'…' if len(text) > TEXT_SHOWN else ''}”"
        if cfg.source == "trained":
            return f"{what} · the trained model (all-MiniLM-L6-v2)"
    elif cfg.source == "random":
        what = f"{cfg.seq_len} random tokens"
    else:
        what = f"hand-entered Q, K, V ({cfg.num_tokens} tokens)"
    mask = {"none": "no mask", "padding": f"padding mask ({cfg.pad_length} real)",
            "window": f"window mask ({cfg.window})"}.get(cfg.mask, f"{cfg.mask} mask")
    parts = [what, f"d_model {cfg.d_model}", f"{cfg.num_heads} head{'s' * (cfg.num_heads > 1)}", mask,
             f"{cfg.positional} positions" if cfg.positional != "none" else "",
             "no ÷√d_k" if not cfg.scale else "", f"temperature {cfg.temperature:g}" if cfg.temperature != 1 else "",
             f"seed {cfg.seed}"]
    return " · ".join(p for p in parts if p)


def _download(movie: Path, name: str, key: str):
    st.download_button("Download the video", data=movie.read_bytes(), file_name=f"{name}.mp4", mime="video/mp4",
                       key=key, on_click="ignore")


def _label(job, current: AttentionConfig | None):
    """Which lesson (and voice) the video in this panel shows; a warning when it is not the one on screen."""
    voice = f"narrated at {job.voice.rate:g}× pace" if job.voice else "silent"
    quality = QUALITIES[job.quality]
    # plain text: a sentence may hold markup
    st.text(f"Video of: {describe(job.cfg)} ({job.scene}, {voice}, {quality.height}p)")
    if current is not None and job.cfg != current:
        st.warning("This video is of another lesson than the one on your screen (see above); "
                   "render again to see yours.")


def has_job(slot: str) -> bool:
    """Whether this session has a render in `slot` (its panel shows the job, and the lesson it is of)."""
    return st.session_state.get(f"studio_job_{slot}") is not None


def job_panel(slot: str, retry_cfg: AttentionConfig | None = None, current: AttentionConfig | None = None):
    """The state of the job in `slot`: waiting, progress, the video, or the error and a retry.

    `current`: the lesson on screen, to say so when the video shows another one."""
    message = st.session_state.get(f"studio_msg_{slot}")
    if message:
        st.warning(message)
    job = st.session_state.get(f"studio_job_{slot}")
    if job is None:
        return
    if job.active:
        _label(job, current)
        _progress(slot)
    elif job.state == "done" and job.path.is_file():
        _label(job, current)
        play(job.path, key=slot)
        _download(job.path, f"{job.scene}-{job.cfg.key()}", f"studio_dl_{slot}")
    else:
        st.error(f"The video could not be made: {job.error or 'its file is gone'}")
        if job.log:
            with st.expander("What manim printed"):
                st.code(job.log, language=None)
        st.button("Try again", key=f"studio_retry_{slot}", on_click=request,
                  args=(job.scene, job.cfg, slot), kwargs={"voice": job.voice, "quality": job.quality})


@rerun.poll(POLL_SECONDS)
def _progress(slot: str):
    job = st.session_state.get(f"studio_job_{slot}")
    if job is None or not job.active:
        return True  # finished: redraw the whole panel with the video or the error
    waiting = service().waiting(job, devices.who())  # also tells the service this page still waits for the job
    text = ("Waiting for a free renderer" + (f" ({waiting} ahead)" if waiting > 0 else "") + "…"
            if job.state == "queued" else f"Rendering {job.scene} ({QUALITIES[job.quality].height}p, "
            f"{wait_text(job.scene, job.quality)} in all): {job.done}/{job.total or '?'} animations")
    st.progress(job.done / job.total if job.total else 0.0, text=text)


def narration_controls():
    """The narration toggle and speaking rate; says so, and how to install it, when Piper is missing."""
    why = missing()
    on = st.toggle("Narration", value=True, key="studio_voice", disabled=bool(why),
                   help="A voice reads each step, with your lesson's numbers. Off: a silent video with subtitles.")
    if why:
        st.caption(why)
    elif on:
        # Three buttons, not a slider: a slider anywhere on the page slows every redraw of it
        # (docs/performance.md).
        st.radio("Speaking rate", list(RATES), index=list(RATES).index(DEFAULT_RATE), key="studio_rate",
                 horizontal=True, format_func=RATE_LABELS.get,
                 help=" · ".join(f"{r:g}×: {what}" for r, what in RATES.items()))


def quality_control(scene: str):
    """Fast (480p) or class (1080p) quality, with the wait each means for this scene."""
    st.radio("Quality", CHOICES, key="studio_quality", horizontal=True,
             format_func=QUALITY_LABELS.get,
             help="Fast: 854×480 at 15 frames a second, for a laptop screen. Class: 1920×1080 at 30, sharp on a "
                  "projector, several times slower to make; `make lecture` makes the default lesson's the night "
                  "before.")
    example = ("the example sentence" if scene in TRAINED else "the default run" if scene in FILMS
               else "the default lesson")
    st.caption(" · ".join(f"{QUALITIES[q].label}: {wait_text(scene, q)}" for q in CHOICES)
               + f" (measured on a 2-core machine for {example}; longer while other videos render).")


def video_on_the_page(section: str):
    """The sidebar's video block on a page that renders its own video (its controls live there)."""
    st.subheader("Lecture video", anchor=False)
    st.caption(f"This page's video is rendered from the page itself: see “{section}” at its end.")


def render_with_my_settings(lesson):
    """The sidebar block every page shares: pick a scene, render it with the lesson on screen.

    Drawn once per full run, outside the lesson view (dashboard/lesson/rerun.py): the button
    reads the lesson when it is pressed (`lesson()`). The job's progress and video, which name
    their lesson, are `job_panel("mine", ...)` right after it; while one shows, a lesson change
    runs the whole app (rerun.sidebar_drawn), so the panel can say it shows another lesson."""
    st.subheader("Lecture video", anchor=False)
    absent = videos_available()
    if absent:
        st.caption(absent)
        return
    scene = st.selectbox("Scene", LECTURE, key="studio_scene", help="\n\n".join(
        f"**{n}**: {DESCRIPTIONS[n]}" for n in LECTURE))
    quality_control(scene)
    narration_controls()
    st.button("Render with my settings", key="studio_render", on_click=_request_on_screen, args=(scene, lesson),
              help="Renders a video of exactly the numbers on screen, at the quality chosen above (cached "
                   "afterwards: a second request plays at once).")


def _request_on_screen(scene: str, lesson):
    request_mine(scene, lesson(), "mine")
