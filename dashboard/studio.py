"""Lecture videos inside the dashboard: one render service for every browser session.

The service (animations.service) queues renders, shares identical requests, caps its disk
cache and survives restarts; this module holds one per server and draws its state: a
render button with a progress bar, the finished video with subtitles, a retry on failure.
Settings (environment): ATTENTION_LAB_MEDIA (cache folder, default `media`),
ATTENTION_LAB_CACHE_GB (cap, default 2), ATTENTION_LAB_RENDER_WORKERS (default cores - 1).
"""

import importlib.util
import os
import uuid
from pathlib import Path

import streamlit as st

from animations.catalog import DESCRIPTIONS, LECTURE
from animations.service import QueueFull, RenderService
from core import AttentionConfig, ConfigError

POLL_SECONDS = 1.0


def videos_available() -> str:
    """'' when videos can be rendered here, else what to install."""
    if importlib.util.find_spec("manim") is None:
        return "Videos need manim, which is not installed: run `make run` (it installs it) or `pip install manim`."
    return ""


@st.cache_resource(show_spinner=False)
def service() -> RenderService:
    workers = os.environ.get("ATTENTION_LAB_RENDER_WORKERS")
    return RenderService(media_dir=Path(os.environ.get("ATTENTION_LAB_MEDIA", "media")).resolve(),
                         cap_bytes=int(float(os.environ.get("ATTENTION_LAB_CACHE_GB", "2")) * 1024**3),
                         workers=int(workers) if workers else None)


def session_id() -> str:
    return st.session_state.setdefault("studio_session", uuid.uuid4().hex)


def request(scene: str, cfg: AttentionConfig, slot: str, shared: bool = False):
    """Start (or join) the render of `scene` for `cfg`; its job is remembered under `slot`.

    `shared`: a render for everyone (the default lesson), not counted against this session.
    """
    try:
        job = service().submit(scene, cfg, "low", session="" if shared else session_id())
    except (ConfigError, QueueFull, KeyError) as err:
        st.session_state[f"studio_msg_{slot}"] = str(err).strip("'\"")
        return
    st.session_state.pop(f"studio_msg_{slot}", None)
    st.session_state[f"studio_job_{slot}"] = job


def play(movie: Path, autoplay: bool = False):
    subtitles = movie.with_suffix(".srt")
    st.video(str(movie), subtitles=str(subtitles) if subtitles.is_file() else None, autoplay=autoplay)


def _download(movie: Path, name: str, key: str):
    st.download_button("Download the video", data=movie.read_bytes(), file_name=f"{name}.mp4", mime="video/mp4",
                       key=key, on_click="ignore")


def job_panel(slot: str, retry_cfg: AttentionConfig | None = None):
    """The state of the job in `slot`: waiting, progress, the video, or the error and a retry."""
    message = st.session_state.get(f"studio_msg_{slot}")
    if message:
        st.warning(message)
    job = st.session_state.get(f"studio_job_{slot}")
    if job is None:
        return
    if job.active:
        _progress(slot)
    elif job.state == "done" and job.path.is_file():
        play(job.path)
        _download(job.path, f"{job.scene}-{job.cfg.key()}", f"studio_dl_{slot}")
    else:
        st.error(f"The video could not be made: {job.error or 'its file is gone'}")
        if job.log:
            with st.expander("What manim printed"):
                st.code(job.log, language=None)
        st.button("Try again", key=f"studio_retry_{slot}", on_click=request, args=(job.scene, job.cfg, slot))


@st.fragment(run_every=POLL_SECONDS)
def _progress(slot: str):
    job = st.session_state.get(f"studio_job_{slot}")
    if job is None or not job.active:
        st.rerun()  # finished: redraw the whole panel with the video or the error
    waiting = service().queue_length() - 1
    text = ("Waiting for a free renderer" + (f" ({waiting} ahead)" if waiting > 0 else "") + "…"
            if job.state == "queued" else f"Rendering {job.scene}: {job.done}/{job.total or '?'} animations")
    st.progress(job.done / job.total if job.total else 0.0, text=text)


def render_with_my_settings(cfg: AttentionConfig):
    """The sidebar block every page shares: pick a scene, render it with the current lesson."""
    st.subheader("Lecture video")
    missing = videos_available()
    if missing:
        st.caption(missing)
        return
    scene = st.selectbox("Scene", LECTURE, key="studio_scene", help="\n\n".join(
        f"**{n}**: {d}" for n, d in DESCRIPTIONS.items()))
    st.button("Render with my settings", key="studio_render", on_click=request, args=(scene, cfg, "mine"),
              help="Renders a 480p video of exactly the numbers on screen (about 10 s; cached afterwards).")
    job_panel("mine")
