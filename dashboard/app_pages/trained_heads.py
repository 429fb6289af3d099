"""Page 8: a trained model's heads on the student's own sentence (all-MiniLM-L6-v2, computed by core)."""

import dataclasses
from contextlib import nullcontext
from functools import partial
from typing import NamedTuple

import numpy as np
import streamlit as st

from animations.catalog import DESCRIPTIONS, TRAINED
from core import HEADS_WORTH_A_LOOK, AttentionConfig, ConfigError
from core.guided_heads import TRIED
from core.limits import MAX_BOX_CHARS
from dashboard import controls, display
from dashboard.app_pages import steps, trained, trained_model, trained_norms
from dashboard.app_pages.trained_table import table
from dashboard.app_pages.word_pieces import NOTES, chip
from dashboard.charts import heatmaps as charts
from dashboard.charts import sizing
from dashboard.charts.draw import draw
from dashboard.charts.draw import slide as draw_slide
from dashboard.charts.model_view import PICK, model_view, phone_view
from dashboard.lesson import rerun
from dashboard.phone import phone_view as phone_sized
from dashboard.text import plain
from dashboard.video import studio


class Slide(NamedTuple):
    """Projector mode, the open head alone: the title's row (the layer and the head go there) and the
    row of steps (beside the switch that ends the slide)."""

    top: object
    steps: object


def header() -> Slide | None:
    """The title; in projector mode with the switch that shows the open head alone: a slide, whose
    controls share the title's rows so that its step and caption fit the window (None while off)."""
    label = "Show the open head alone"  # a part's slide yields to it once a thumbnail opens a head: off goes back
    if not controls.projector() or (PART is not None and not controls.flag_before(label, "alone")):
        st.title("Trained heads", anchor=False)
        return None
    top = st.container(horizontal=True, vertical_alignment="bottom", gap="large")
    top.title("Trained heads", width="content", anchor=False)
    second = st.container(horizontal=True, vertical_alignment="center", gap="large")
    steps_box = second.container(horizontal=True, vertical_alignment="center", gap="medium", width="content")
    with second if controls.flag_before(label, "alone") else top:
        alone = controls.flag(label, "alone", on_change=trained.opened_alone,
                              help="The open head's step fills the screen (a cell too small to print its number "
                                   "shows it when you point at it); ← and → move between its steps.")
    return Slide(top, steps_box) if alone else None


trained_model.current()
# On the projector a deck's screen may show one part: every head at once, or the open head's norm view.
PART = controls.part(("grid", "norms"))
SLIDE = header()
if SLIDE is None and PART is None:
    trained_model.picker(trained.model_changed)
    trained_model.introduction()

PHONE_HELP = ("On: every head's thumbnail with the layers side by side, large enough to tap, and the measured "
              "patterns one measure at a time. Off: the full grid and table, each scrolling sideways in its box.")
EVERY_HEAD = "Each thumbnail is one head's weights on this sentence (rows: queries, columns: keys, on the 0..1 scale)."


def sentence_box() -> str:
    text = trained.sentence()
    if st.session_state.get(trained.ERROR):
        st.error(st.session_state.pop(trained.ERROR), icon="⚠️")
    typed = st.text_input("Sentence the trained model reads", key=trained.BOX, on_change=trained.typed,
                          max_chars=MAX_BOX_CHARS, help=trained_model.length_help())
    lesson_text, where = trained.offered()
    if typed != text:
        st.caption("Not in use: the page shows the last sentence that worked.")
    elif text == lesson_text:
        st.caption(f"This is {where}; type another one here.")
    else:
        st.caption("This page's own sentence (the sidebar's lesson is not changed).")
        st.button("Use the sidebar's sentence", key="trained_use_lesson", on_click=trained.use_lesson_sentence)
    return text


def pieces(tokens) -> int | None:
    """The word pieces as pills; the one picked (from 1), if any, is followed in the open head."""
    pieces = "tokens" if trained_model.info().causal else "word pieces"
    st.subheader(f"The {len(tokens)} {pieces} the model reads", anchor=False)
    picked = controls.choice(st.pills, "Pick a word piece to see where it looks in the head open below",
                             list(range(1, len(tokens) + 1)), "piece", None, format_func=partial(chip, tokens))
    shown = [NOTES[piece] for piece in NOTES if piece != "[UNK]" or piece in tokens]
    shown = shown if trained_model.builtin() else trained_model.piece_notes(tokens)
    st.markdown("\n".join(f"- {note}" for note in shown))
    return picked


def grid(text, tokens, weights, measured, side=None) -> bool:
    """Every head's thumbnail; `side` (a part's slide): a column beside the grid for its title and controls.
    Returns whether the page is phone-sized (dashboard/phone.py: the switch is drawn here, on a phone only)."""
    slide, side = side is not None, side or st.container()
    side.subheader("Every head at once", anchor=False)
    phone = phone_sized(PHONE_HELP)
    # on a slide the side column is narrow and tall: one box above the other, each wide enough for its choice
    left, right = (side, side) if slide else side.columns([3, 2])
    measures, described = trained_model.measures(), trained_model.described()
    with left:
        pattern = controls.choice(st.selectbox, "Highlight the heads whose", ["none", *measures], "pattern", "none",
                                  format_func=lambda p: measures.get(p, "(no highlight: every head alike)"))
    with right:
        threshold = controls.choice(st.selectbox, "is at least", trained.THRESHOLDS, "at", 0.5,
                                    disabled=pattern == "none")  # a select box: a slider slows every redraw
    if pattern == "none":
        highlight = np.ones(weights.shape[:2], dtype=bool)
        said = EVERY_HEAD
    else:
        highlight = trained.passing(measured[pattern], threshold)
        found = [f"layer {la + 1} head {h + 1}" for la, h in zip(*highlight.nonzero(), strict=True)]
        said = (f"Highlighted: {len(found)} of {highlight.size} heads, those whose {described[pattern]} is at least "
                f"{threshold:g} on this sentence{': ' + ', '.join(found) if found else ''}.")
    if phone:
        said += " Phone-sized: a column per layer, a row per head."
    # the class reads a slide: how to open a head is the lecturer's to know (the deck's notes say it), and there
    # a thumbnail opens its head alone, not below the grid
    side.caption(said if slide else f"{said} **{'Tap' if phone else 'Click'} a thumbnail to open that head below the "
                 "grid.**")
    key = f"trained_{'phone_' * phone}grid_{st.session_state.get('trained_grid_n', 0)}"  # CSS: no scroll box
    draw((phone_view if phone else model_view)(weights, highlight), key, on_select=partial(_picked, key))
    return phone


def _picked(key: str):
    """A thumbnail clicked: open its head; a new chart key, so that the same thumbnail can be clicked again."""
    chosen = st.session_state[key].selection.get(PICK) or []
    if chosen:
        trained.open_head(chosen[0]["layer"], chosen[0]["head"])
        st.session_state["trained_grid_n"] = st.session_state.get("trained_grid_n", 0) + 1


def guided(text):
    st.subheader("Heads worth a look", anchor=False)
    st.caption(f"Each note is a set of measured claims. The lab's tests check them on {len(TRIED)} sentences chosen "
               "to refute them (passives, “it” that refers to the object, subjects that are not the first noun, "
               "questions, lists, long clauses, sentences of one or two words, sentences of 40 word pieces or "
               "more), with transformers' own BERT; a claim that fails on some says “on most sentences” and names "
               "the kind of sentence it fails on. Heads like these (one piece back or forward, broad, parked on [CLS] "
               "or [SEP]) were catalogued in BERT by Clark et al. (2019, “What Does BERT Look At?”) and, at the same "
               "time, by Kovaleva et al. (2019, “Revealing the Dark Secrets of BERT”). Under each "
               "note: its claims measured on your sentence.")
    st.caption(trained_norms.NOT_EXPLANATION)
    for note in HEADS_WORTH_A_LOOK:
        with st.container(border=True):
            words, button = st.columns([5, 1], vertical_alignment="center")
            with words:
                st.markdown(f"**Layer {note.layer}, head {note.head}: {note.name}.** {note.explanation}")
                st.caption(trained_norms.claims_caption(note, text))
                if note.caveat:
                    st.caption(f":orange[**Caveat:**] {note.caveat}")
            button.button("Open this head", key=f"trained_open_{note.layer}_{note.head}", on_click=trained.open_head,
                          args=(note.layer, note.head))


def one_head(text: str, measured: dict, picked: int | None, slide: Slide | None = None):
    """The open head; `slide` (projector mode, the head alone): the page's only part, whose controls
    go in the title's rows, so that the step fits the window."""
    alone = slide is not None
    if not alone:
        st.subheader("One head, step by step", anchor=False)
    if controls.projector():  # the layer, the head and the steps in one row, so the step below fits the screen
        with slide.top if alone else controls.row():
            layer, head = _which()
        with slide.steps if alone else controls.row():
            chosen = steps.choose(arrows=True)
            predicting = controls.predict_first("softmax") if chosen[2].open else None
    else:
        left, right = st.columns(2)
        with left:
            layer = controls.buttons("Layer", 1, trained_model.info().layers, "layer", 1)
        with right:
            head = controls.number("Head", 1, trained_model.info().heads, "head", 1)
        chosen = predicting = None
    cfg = AttentionConfig.trained(text, layer, model=trained_model.name())
    at, columns = (layer - 1, head - 1), trained_model.columns()
    weights = " · ".join(f"{columns[p]} {measured[p][at]:.2f}" for p in columns if p not in ("entropy", "spread"))
    spread = "entropy ÷ ln(number of tokens the row sees)" if trained_model.info().causal else "entropy ÷ ln T"
    st.markdown(f"**Layer {layer}, head {head}** on this sentence: mean weight on {weights}; "
                f"evenness {measured['spread'][at]:.2f} ({spread}).")
    trace = trained.layer_trace(text, layer)
    if picked is not None and not alone:
        piece_row(trace, head, picked)
    with draw_slide() if alone else nullcontext():
        steps.draw_step(chosen or steps.choose(), cfg, trace, head - 1, same_charts=True, predicting=predicting)
    if trained_model.builtin() and not alone:  # the norm view reads MiniLM's value and output projections
        trained_norms.norm_view(text, layer, head)


# The norm view's slide has one row of controls above its maps and nothing under them: its maps take this share
# of the window's height (a 13-piece sentence's rows then as tall as their 24 px labels, measured in
# tests/dashboard/test_present_browser.py)
NORMS_SLIDE = dataclasses.replace(sizing.SLIDE, window_share=0.45)


def norms(text: str):
    """Projector mode, part=norms: the open head's norm view, without its steps."""
    with controls.row():
        layer, head = _which()
    if trained_model.builtin():  # the norm view reads MiniLM's value and output projections
        with draw_slide(NORMS_SLIDE):  # its two maps sized so that they fit the screen below the controls
            trained_norms.norm_view(text, layer, head, beside=True)


def _which() -> tuple[int, int]:
    """The layer and the head (projector mode): rows of numbered buttons, large targets, where the heads fit."""
    info = trained_model.info()
    layer = controls.buttons("Layer", 1, info.layers, "layer", 1)
    if info.heads <= controls.HEAD_BUTTONS_UP_TO:
        return layer, controls.buttons("Head", 1, info.heads, "head", 1)
    return layer, controls.number("Head", 1, info.heads, "head", 1, width=400)


def piece_row(trace, head: int, n: int):
    """Row n of the open head's weights: where word piece n looks (the same numbers as the heatmap's row)."""
    labels = charts.token_labels(trace.tokens)
    title = f"Where word piece {n}, “{trace.tokens[n - 1]}”, looks: row {n} of the weights"
    draw(charts.row_bars(trace.weights[head - 1, n - 1], labels, title, "piece-row"), "trained_piece_row")


def video(text: str):
    """The trained scene of this sentence, from the render service every page uses (studio)."""
    scene = TRAINED[0]
    st.subheader("A video of these heads", anchor=False)
    absent = studio.videos_available()
    if absent:
        st.caption(absent)
        return
    # The video shows the guided tour's two heads, whichever head is open above: its lesson is the
    # sentence alone (layer 1 always), so one sentence is one video, rendered once and then cached.
    cfg = AttentionConfig.trained(text)
    st.caption(f"{DESCRIPTIONS[scene]} It reads the sentence in the box above, with core's numbers.")
    studio.quality_control(scene)
    studio.narration_controls()
    st.button("Render the video of this sentence", key="trained_render", on_click=studio.request_mine,
              args=(scene, cfg, scene), help="Cached afterwards: a second request for the same sentence plays at once.")
    studio.job_panel(scene, current=cfg)


def slide():
    """Projector mode, the open head alone or one part: no sentence box (the page's sentence stays in use)."""
    if SLIDE is not None and st.session_state.pop(trained.TOP, False):  # the run after a head opened alone
        display.scroll_to_top()
    if (text := trained.installed(trained.sentence)) is None:
        return
    if st.session_state.get(trained.ERROR):
        st.error(st.session_state.pop(trained.ERROR), icon="⚠️")
    try:
        measured = trained.patterns(text)
        whole = trained.trace(text) if PART == "grid" and SLIDE is None else None
    except ConfigError as err:
        if err.field != "model":
            raise
        st.error(plain(str(err)), icon="📦")
        return
    if SLIDE is not None:  # whole runs: the slide is the page, and its controls are in the title's rows
        return one_head(text, measured, None, SLIDE)
    if PART == "grid":  # narrower, so that its six layers fit; a thumbnail clicked opens its head alone
        with (columns := st.columns([2, 1], gap="large"))[0]:  # the grid's title and controls beside it
            return grid(text, whole.tokens, whole.weights, measured, columns[1])
    rerun.part(norms, text)  # the layer and the head rerun it alone


def page():
    if SLIDE is not None or PART is not None:
        slide()
        return
    if (text := trained.installed(sentence_box)) is None:
        return
    try:
        whole, measured = trained.trace(text), trained.patterns(text)
    except ConfigError as err:
        if err.field != "model":
            raise
        st.error(plain(str(err)), icon="📦")  # a folder that cannot be read, or a model past the memory budget
        return
    picked = pieces(whole.tokens)
    phone = grid(text, whole.tokens, whole.weights, measured)
    rerun.part(one_head, text, measured, picked)  # the layer, the head and the step rerun it alone
    if not trained_model.builtin():  # the guided notes and the video are MiniLM's: other models get measures only
        trained_model.strongest_heads(measured, trained.open_head)
        table(measured, phone)
        return
    guided(text)
    table(measured, phone)
    video(text)


page()
