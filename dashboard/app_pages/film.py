"""The Watch it learn page's parts: the run's settings, the training panel, the film's playback.

A run's settings live in this page's controls and in the address (`film_*` keys, apart from the
sidebar lesson's); the film itself comes from the film service (classroom.films): trained in a
worker process or on the hall's workers, shared by every session that asks for the same settings,
kept on disk. This page never trains in its own thread: it asks, then polls.
"""

import time

import streamlit as st

from classroom.films.service import service
from core import ConfigError
from core.film import D_MODELS, MAX_HEADS, MAX_STEPS, TASKS, LearnSettings
from dashboard import controls, devices
from dashboard.charts import training
from dashboard.charts.draw import draw
from dashboard.lesson import rerun
from dashboard.text import plain
from jobs import QueueFull

POLL_SECONDS = 0.5  # the live loss curve while a run trains
PLAY_SECONDS = 0.8  # one snapshot per tick while the film plays
STEP_CHOICES = tuple(s for s in (100, 200, 300, 400, 600, 800, 1000) if s <= MAX_STEPS)
SEED_CHOICES = tuple(range(10))
TASK_LABELS = {"induction": "repeated letters (induction)", "text": "next letter of an English text"}
_MESSAGE = "film_message"  # a refusal of the film service, said once under the Train button
PLAYING = "film_playing"
_TICK = "film_tick"  # when the playing film last moved on


def settings_controls() -> LearnSettings:
    """The run's settings: the defaults are the class's film; each change names another film."""
    d = LearnSettings()
    with st.expander("Settings of the run", expanded=False):
        left, right = st.columns(2)
        with left:
            task = controls.choice(st.radio, "Task", list(TASKS), "film_task", d.task, format_func=TASK_LABELS.get)
            layers = controls.choice(st.segmented_control, "Layers", [1, 2], "film_layers", d.layers)
            width = controls.choice(st.segmented_control, "d_model", list(D_MODELS), "film_width", d.d_model)
            heads = controls.choice(st.segmented_control, "Heads per layer",
                                    [h for h in (1, 2, 4, 8) if h <= MAX_HEADS and width % h == 0], "film_heads",
                                    d.heads)
        with right:
            positions = controls.flag("Learned positions", "film_positions", d.positions,
                                      help="Off: the model gets no position information; only the causal mask "
                                           "tells tokens apart by where they stand.")
            causal = controls.flag("Causal mask", "film_causal", d.causal,
                                   help="Off: every token also sees the tokens after it, including the one it is "
                                        "asked to predict.")
            steps = controls.choice(st.selectbox, "Training steps", list(STEP_CHOICES), "film_steps", d.steps)
            seed = controls.choice(st.selectbox, "Seed", list(SEED_CHOICES), "film_seed", d.seed,
                                   help="Fixes the starting weights and the training data: the same settings and "
                                        "seed give every student the same film.")
    try:
        return LearnSettings(task=task, layers=layers, heads=heads, d_model=width, positions=positions,
                             causal=causal, steps=steps, seed=seed)
    except ConfigError as err:  # not reachable from these controls; a sentence, never a traceback
        st.error(f"{plain(err)} The default settings are used instead.")
        return d


def _train(settings: LearnSettings):
    try:
        service().submit(settings, devices.who())
    except QueueFull as err:
        st.session_state[_MESSAGE] = str(err)


def film_of(settings: LearnSettings, label: str = "Train", key: str = "film_train"):
    """The finished film of `settings`, or None while there is none: then the Train button, or the
    run's progress and its live loss curve (polled), or its failure and a retry."""
    films = service()
    film = films.cached(settings)
    if film is not None:
        return film
    job = films.job(settings.key())
    message = st.session_state.pop(_MESSAGE, None)
    if message:
        st.warning(message, icon="⏳")
    if job is not None and job.state in ("queued", "running"):
        _progress(settings, key)
        return None
    if job is not None and job.state == "failed":
        st.error(f"The run could not finish: {job.error}")
        label = "Try again"
    st.button(label, key=key, type="primary", on_click=_train, args=(settings,),
              help="Trains the tiny model with these settings on the lab's server, then keeps the film: the same "
                   "settings play at once for everyone afterwards.")
    return None


@rerun.poll(POLL_SECONDS)
def _progress(settings: LearnSettings, key: str):
    job = service().job(settings.key())
    if job is None or job.state not in ("queued", "running"):
        return True  # finished (or gone): the whole page draws the film, or the failure
    ahead = service().waiting(job, devices.who())  # this tab waits for the job too: it is not cancelled meanwhile
    if job.state == "queued":
        st.progress(0.0, text="Waiting for the trainer" + (f" ({ahead} run{'s' * (ahead != 1)} ahead)" if ahead else "")
                    + "…")
        return
    accuracies, name = job.accuracies, training.accuracy_name(settings.task)
    st.progress(job.step / job.total if job.total else 0.0,
                text=f"Training: step {job.step:,} of {job.total:,}" +
                     (f", loss {job.losses[-1][1]:.2f}" if job.losses else "") +
                     (f", {name} {accuracies[-1][1]:.0%}" if accuracies else ""))
    if job.losses:
        left, right = st.columns(2)
        with left:
            steps, losses = zip(*job.losses, strict=True)
            draw(training.loss_chart(steps, losses, job.total), f"{key}_live")
        if accuracies:
            with right:
                steps, shares = zip(*accuracies, strict=True)
                draw(training.accuracy_chart(steps, shares, job.total, settings.task), f"{key}_live_accuracy")


def scrubber(snapshots) -> int:
    """The snapshot on screen: a slider over the recorded steps, ← → and play/pause. Returns its index."""
    options = [int(s) for s in snapshots]
    key = controls.state_key("film_at")
    now = time.monotonic()
    # One tick of the film, the next snapshot: only on the timer's runs, not on the runs a click makes.
    if st.session_state.get(PLAYING) and now - st.session_state.get(_TICK, 0.0) >= 0.9 * PLAY_SECONDS:
        st.session_state[_TICK] = now
        at = options.index(st.session_state[key]) if st.session_state.get(key) in options else 0
        if at + 1 < len(options):
            st.session_state[key] = options[at + 1]
        else:
            st.session_state[PLAYING] = False
    back, play, forward, slider = st.columns([1, 1.6, 1, 8], vertical_alignment="bottom")
    step = st.session_state.get(key, options[-1])
    at = options.index(step) if step in options else len(options) - 1
    back.button("←", key="film_back", on_click=_move, args=(key, options, at - 1), disabled=at == 0,
                help="The snapshot before this one")
    forward.button("→", key="film_forward", on_click=_move, args=(key, options, at + 1),
                   disabled=at == len(options) - 1, help="The next snapshot")
    playing = st.session_state.get(PLAYING, False)
    play.button("Pause" if playing else "Play", key="film_play", on_click=_play, args=(key, options),
                icon=":material/pause:" if playing else ":material/play_arrow:",
                help="Plays the snapshots from here (from the start if at the end)")
    with slider:
        chosen = controls.choice(st.select_slider, "Training step shown", options, "film_at", options[-1])
    return options.index(chosen)


def _move(key: str, options: list, to: int):
    st.session_state[PLAYING] = False
    st.session_state[key] = options[min(max(0, to), len(options) - 1)]


def _play(key: str, options: list):
    playing = not st.session_state.get(PLAYING, False)
    st.session_state[PLAYING] = playing
    st.session_state[_TICK] = time.monotonic()
    if playing and st.session_state.get(key, options[-1]) == options[-1]:
        st.session_state[key] = options[0]
