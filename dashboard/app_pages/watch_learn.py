"""Page: a tiny Transformer trained here, now; the class watches its induction head form."""

import numpy as np
import pandas as pd
import streamlit as st

from animations.catalog import DESCRIPTIONS, FILMS
from core import PRESETS, ConfigError
from core.film import (
    ALPHABET,
    FINAL_STEPS,
    INDUCTION_THRESHOLD,
    PREVIOUS_THRESHOLD,
    SEGMENT,
    SEQ_LEN,
    LearnSettings,
    decode,
    encode,
)
from core.learn import copy_right, repeat_start, run
from core.learn_tasks import EVAL_SEQUENCES, HELD_OUT_SEQUENCES, probe_copies
from core.trace import shown_token, token_labels
from dashboard import controls
from dashboard.app_pages import film as parts
from dashboard.app_pages import learn_questions as questions
from dashboard.charts import heatmaps, training
from dashboard.charts.draw import draw
from dashboard.charts.lines import row_bars_down
from dashboard.charts.model_view import model_view
from dashboard.lesson import rerun
from dashboard.phone import phone_view
from dashboard.text import plain
from dashboard.video import studio

st.title("Watch it learn", anchor=False)
_D = LearnSettings()  # the defaults the text names, so that it follows them
st.markdown(
    "Every other page shows attention with random weights, or with weights someone else trained. Here a tiny "
    f"Transformer **learns in front of the class**: by default {_D.layers} layers of attention only (no feed-forward "
    f"part), {_D.heads} heads each, d_model {_D.d_model}, reading sequences {SEQ_LEN} symbols long, written in "
    f"{len(ALPHABET)} symbols (the 26 letters, the space and . , ' ? !). In the default task, each training sequence "
    f"holds a random stretch of {SEGMENT[0]} to {SEGMENT[1]} symbols twice, at a random place; the "
    "model is scored on predicting the second copy, which only looking back can do. Nothing tells it how. (The "
    "settings of the run change the model and the task.)"
)


def what_to_watch():
    """Shown with the film only: it names the layers, the answer of the question asked before it."""
    st.caption(
        "What to watch for: the loss sits near chance for a while, then drops suddenly, as heads of two kinds form "
        "together: **previous-token heads** in layer 1 and **induction heads** in layer 2 (the summary under the "
        "film says how many of each this run formed): the circuit Elhage et al. (2021, “A Mathematical Framework for "
        "Transformer Circuits”) described. Olsson et al. (2022, “In-context Learning and Induction Heads”) studied "
        "how it forms, and saw the same phase change in language models, as a bump in the loss curve when induction "
        "heads appear. With the default settings a second, smaller drop follows, after which the model predicts "
        "nearly all of a second copy (its copy accuracy, measured on sequences it never trained on, is under the "
        "summary). Heads are named here by measuring what their weights do, never by their number. Every chart is "
        "a recording (a film) of one training run: the same settings and seed give every student the same film."
    )


# The phrase "Your own sequence" starts with: no letter twice, so each letter of the second copy has
# one earlier place to copy from (a repeated letter leaves two, and the next letter can be ambiguous).
PHRASE = "uncopyrightable. uncopyrightable."


def _heads(scores, heads) -> str:
    return ", ".join(f"layer {la} head {h} ({scores[-1, la - 1, h - 1]:.2f})" for la, h in heads)


def summary(film):
    previous, induction = film.previous_token_heads(), film.induction_heads()
    said = []
    if previous:
        said.append(f"previous-token score ≥ {PREVIOUS_THRESHOLD:g}: {_heads(film.previous_token, previous)}")
    if induction:
        said.append(f"induction score ≥ {INDUCTION_THRESHOLD:g}: {_heads(film.induction, induction)}, the first "
                    f"recorded at step {film.formed_at()}")
    if said:
        st.success("Measured at the end of the run: " + "; ".join(said) + ".",
                   icon=":material/insights:")
    else:
        st.info(f"No head of this run reached a previous-token score of {PREVIOUS_THRESHOLD:g} or an induction score "
                f"of {INDUCTION_THRESHOLD:g}: this model did not form the circuit in these steps.",
                icon=":material/insights:")
    what = "letters of a second copy" if film.settings.task == "induction" else "next letters of the text"
    st.caption(f"Training took {film.seconds:.1f} s; final loss {film.final_loss():.2f} (chance: {training.CHANCE:.2f};"
               f" the mean of the last {FINAL_STEPS} steps). On {HELD_OUT_SEQUENCES} fresh sequences it never trained "
               f"on, the trained model predicts {film.final_accuracy:.1%} of the {what} right.")


def film_view(film):
    """The film at the step under the scrubber: the loss, every head on the probe, one head large,
    the scores."""
    k = parts.scrubber(film.snapshots)
    step = int(film.snapshots[k])
    total = film.settings.steps
    steps = np.arange(1, len(film.loss) + 1)
    left, right = st.columns(2)
    with left:
        draw(training.loss_chart(steps, film.loss, total, step, film.formed_at(), film.counting_loss), "film_loss")
    with right:
        draw(training.accuracy_chart(steps, film.accuracy, total, film.settings.task, step), "film_accuracy")
    st.caption(counting_note(film) + "Accuracy: the share of the scored letters whose top prediction is right, on "
               "each step's sequences before the model learns from them, so on sequences it has not seen.")
    weights = film.weights[k]  # (L, H, T, T)
    L, H = weights.shape[:2]
    bright = np.zeros((L, H), dtype=bool)
    for la, h in film.previous_token_heads() + film.induction_heads():
        bright[la - 1, h - 1] = True
    st.subheader(f"Every head on the probe sequence at step {step}", anchor=False)
    st.caption("Each thumbnail is one head's weights on the probe (rows: the letter attending, columns: the "
               "letters it may look at, 0..1). Full colour: the heads the end of the run names (above); faded: "
               "the others.")
    draw(model_view(weights, bright if bright.any() else np.ones((L, H), dtype=bool)), "film_heads")
    open_head(film, k)
    left, right = st.columns(2)
    with left:
        draw(training.scores_chart(film.snapshots, film.previous_token, "previous_token", total, step), "film_previous")
    with right:
        draw(training.scores_chart(film.snapshots, film.induction, "induction", total, step), "film_induction")
    return parts.PLAY_SECONDS if st.session_state.get(parts.PLAYING) else None


def counting_note(film) -> str:
    """What the counting line on the loss chart is (induction films only)."""
    if film.counting_loss is None:
        return ""
    return (f"Dashed green: **counting**, which predicts each letter by how often it has appeared so far in the "
            f"sequence, on the same training sequences: a loss of {film.counting_loss:.2f}. Knowing which "
            "letters came before, but not where, gets about that far (a model can weigh them a little better than "
            "counts do, without copying); only well below it is the model copying. ")


def open_head(film, k: int):
    L, H = film.weights.shape[1:3]
    default = film.induction_head() or (L, 1)
    left, right = st.columns(2)
    with left:
        layer = controls.buttons("Layer", 1, L, "film_layer", default[0])
    with right:
        head = controls.buttons("Head", 1, H, "film_head", default[1] if layer == default[0] else 1)
    at = k, layer - 1, head - 1
    st.markdown(f"**Layer {layer}, head {head} at step {int(film.snapshots[k])}**: previous-token score "
                f"{film.previous_token[at]:.2f}, induction score {film.induction[at]:.2f}.")
    labels = token_labels(film.probe_labels)
    if phone_view(PHONE_HELP):
        return query_row(film, film.weights[k, layer - 1, head - 1], labels)
    # One title for every step: the chart's spec then stays the same while the film plays. In a keyed box, a phone's
    # scroll box (display.PHONE_CSS): a chart without a selection does not carry its own key in its class.
    with st.container(key="film_open_head_box"):
        draw(heatmaps.matrix_heatmap(film.weights[k, layer - 1, head - 1], labels, labels, "weights on the probe",
                                     "film-head", scheme=heatmaps.style.WEIGHT_SCHEME, x_title="key (looked at)",
                                     y_title="query (looking)", domain=(0, 1)), "film_open_head")
    st.caption(f"A previous-token head lights the diagonal just below the main one. An induction head, in the "
               f"second copy of the repeated stretch, lights the letter just after the earlier copy of the query's "
               f"own letter. Both scores are measured on {EVAL_SEQUENCES} other sequences with a repeated stretch, "
               f"the same for every run; a head is named from {PREVIOUS_THRESHOLD:g} (previous-token) or "
               f"{INDUCTION_THRESHOLD:g} (induction).")


PHONE_HELP = (f"On: one row of the open head's weights, where the letter you pick looks, every letter legible. Off: "
              f"the whole {SEQ_LEN} × {SEQ_LEN} heatmap, scrolling sideways in its box.")


def query_row(film, weights, labels):
    """The open head on a phone: one query's row of its weights (T, T), every key's letter legible (in the whole
    heatmap a row is 6 px high). By default a letter in the middle of the probe's second copy, where an induction
    head shows itself."""
    first, second, length = probe_copies(film.settings.task)
    copied = np.array_equal(film.probe[first:first + length], film.probe[second:second + length])
    letters = [shown_token(t) for t in film.probe_labels]
    n = st.selectbox("Query letter (the row shown)", range(1, len(labels) + 1), key="film_phone_query",
                     index=second + length // 2 if copied else len(labels) - 1, format_func=lambda i: labels[i - 1])
    draw(row_bars_down(weights[n - 1], labels, f"Where letter {n}, “{letters[n - 1]}”, looks", "film-row"),
         "film_phone_row")
    said = f"Row {n} of the head's weights: where letter {n} looks; its bars sum to 1"
    said += ", and the causal mask gives the letters after it 0." if film.settings.causal else "."
    if copied:
        said += f" Letters {second + 1}–{second + length} repeat letters {first + 1}–{first + length}."
        at = n - 1 - (second - first)  # the same place in the first copy, from 0
        if second <= n - 1 < second + length:
            said += (f" Letter {n} is in the second copy: an induction head looks mostly at letter {at + 2}, "
                     f"“{plain(letters[at + 1])}”, just after letter {at + 1}, the same place in the first copy.")
        else:
            said += " Pick a letter of the second copy to see where an induction head looks."
    st.caption(said + f" A previous-token head looks mostly at the letter just before the query. Both scores above "
               f"are measured on {EVAL_SEQUENCES} other sequences with a repeated stretch.")


def own_sequence(film):
    st.subheader("Your own sequence", anchor=False)
    typed = st.text_input("Type a phrase twice (the trained model reads it)", PHRASE,
                          max_chars=SEQ_LEN, key="film_typed",
                          help=f"Letters, spaces and {plain(ALPHABET[27:])} only; at most {SEQ_LEN} characters.")
    try:
        ids = encode(typed)
        if len(ids) < 2:
            raise ConfigError("Type at least two characters.", "text")
    except ConfigError as err:
        st.warning(plain(str(err)))  # it quotes what was typed
        return
    weights, probs = run(film, ids)  # (L, H, T, T), (T, 32)
    layer, head = film.induction_head() or (film.weights.shape[1], 1)
    labels = token_labels(decode(ids))
    draw(heatmaps.matrix_heatmap(weights[layer - 1, head - 1], labels, labels,
                                 f"Layer {layer}, head {head} on your sequence", "film-yours",
                                 scheme=heatmaps.style.WEIGHT_SCHEME, x_title="key (looked at)",
                                 y_title="query (looking)", domain=(0, 1)), "film_yours")
    guess = probs.argmax(axis=-1)
    # a table's cells are not Markdown: the symbols as they are (encode let through only ALPHABET)
    rows = pd.DataFrame({"after": labels[:-1], "next letter": decode(ids[1:]),
                         "the model predicts": decode(guess[:-1]),
                         "with probability": probs[np.arange(len(ids) - 1), guess[:-1]]})
    st.caption(sequence_note(film, ids, guess, probs))
    st.dataframe(rows, hide_index=True, column_config={
        "with probability": st.column_config.NumberColumn(format="%.2f")}, height=240, key="film_predictions")


def sequence_note(film, ids, guess, probs) -> str:
    """What the model got right on the student's sequence, and in its second copy, measured."""
    right = (guess[:-1] == np.asarray(ids[1:])).mean()
    said = f"The model predicts the next letter correctly at {right:.0%} of the positions."
    copy, start = copy_right(ids, probs), repeat_start(ids)
    if copy is None:
        return said + " Your sequence is not one phrase written twice: type one twice to see the copy predicted."
    said += (f" Of the {copy.size} letters of the second copy that the first copy gives (all but its first), it "
             f"predicts {copy.sum()} right")
    if film.settings.task == "induction":
        said += (f"; on {HELD_OUT_SEQUENCES} fresh sequences of random letters, {film.final_accuracy:.1%} of a "
                 "second copy")
    twice = len(set(ids[:start])) < start
    return said + (". A letter that occurs twice in your phrase leaves two earlier places to copy from, and the "
                   "letter after it can be ambiguous." if twice else ". No letter occurs twice in your phrase: each "
                   "letter of the second copy has one earlier place to copy from.")


def video(settings):
    """The narrated scene of the default run (animations/scenes/induction.py), from the render service."""
    scene = FILMS[0]
    st.subheader("A video of this run", anchor=False)
    absent = studio.videos_available()
    if absent:
        st.caption(absent)
        return
    if settings != LearnSettings():
        st.caption("The video tells the story of the default run (the settings' defaults); choose those to see "
                   "the same run on this page.")
    st.caption(DESCRIPTIONS[scene])
    studio.quality_control(scene)
    studio.narration_controls()
    lesson = PRESETS["default"]  # a film's scene draws no lesson: the render service keys it on the default one
    st.button("Render the video of the default run", key="film_render", on_click=studio.request_mine,
              args=(scene, lesson, scene), help="Cached afterwards: a second request plays at once.")
    studio.job_panel(scene)


def page():
    settings = parts.settings_controls()
    if not questions.which_head(settings):
        return
    film = parts.film_of(settings)
    if film is None:
        return
    what_to_watch()
    summary(film)
    questions.reveal_which_head(film)
    rerun.part(film_view, film, every=parts.PLAY_SECONDS if st.session_state.get(parts.PLAYING) else None)
    questions.one_layer(settings, film)
    own_sequence(film)
    video(settings)


page()
