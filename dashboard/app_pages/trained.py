"""The Trained heads page's state: which sentence it reads, and its numbers, cached.

The sentence is the sidebar lesson's (when the lesson is a sentence; a default one otherwise) or
the page's own, typed in its box: whichever changed last. A sentence the model cannot read
(empty, too many word pieces) keeps the last one that worked and says why. A missing model
package is not kept quiet: `sentence()` raises its `ConfigError` for the page to show.

Every number comes from core (`trained_trace`, `head_patterns`), cached in the lab's one
memory-bounded cache (`data.memo`), keyed on the plain text.
"""

import numpy as np
import streamlit as st

from core import AttentionConfig, ConfigError, TrainedTrace, guided_heads, head_patterns, trained_trace
from core.head_patterns import causal_patterns
from dashboard import controls, data
from dashboard.app_pages import trained_model
from dashboard.lesson import state
from dashboard.text import plain

DEFAULT_SENTENCE = guided_heads.EXAMPLE  # the sentence the guided notes are measured on
SENTENCE = "trained_sentence"  # the sentence the page shows: the last one that worked
FOLLOWED = "trained_followed"  # the sidebar's sentence as the page last followed it
BOX = "trained_box"  # the page's text box
ERROR = "trained_error"  # why the last sentence asked for was refused (said once)
# The word piece picked in the pills (controls.choice, `piece` in the URL).
PIECE = controls.state_key("piece", page="trained_heads")
LESSON_KINDS = {"random": "random tokens", "manual": "hand-entered Q, K and V"}


# -- numbers, from core ---------------------------------------------------------------------------
def trace(text: str) -> TrainedTrace:
    """Every layer of the model in use reading `text` (the model itself is loaded once per process by core)."""
    model = trained_model.name()
    return data.memo.get_or_make(("trained", model, text), lambda: trained_trace(text, model=model))


def patterns(text: str) -> dict[str, np.ndarray]:
    """core's measured patterns of the sentence (causal_patterns for GPT-2): each a (layers, heads) array."""
    measure = causal_patterns if trained_model.info().causal else head_patterns
    return data.memo.get_or_make(("trained-patterns", trained_model.name(), text),
                                   lambda: measure(trace(text).weights))


def layer_trace(text: str, layer: int):
    """Layer `layer` (1..6) as an AttentionTrace: run_trace(AttentionConfig.trained(text, layer))'s numbers."""
    return trace(text).layer(layer)


THRESHOLDS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]  # what `passing` is asked with


def passing(values: np.ndarray, threshold: float) -> np.ndarray:
    """(layers, heads) True where a head's measured value is at least `threshold`."""
    return np.asarray(values) >= threshold


# -- the sentence ---------------------------------------------------------------------------------
def offered() -> tuple[str, str]:
    """(the sentence the sidebar's lesson offers this page, where it comes from, in words)."""
    cfg = state.lesson()
    if cfg.source == "text":
        return cfg.text, "the sidebar's sentence"
    kind = LESSON_KINDS.get(cfg.source, cfg.source)
    return DEFAULT_SENTENCE, f"a default sentence, since the sidebar's lesson is {kind}, not a sentence"


def installed(read):
    """`read()`, or None, with the install hint on the page, where the model package is missing."""
    try:
        return read()
    except ConfigError as err:
        if err.field != "source":
            raise
        st.error(str(err), icon="📦")  # how to install it, in one sentence
        return None


def sentence() -> str:
    """The sentence the page shows this run (raises ConfigError when the model is not installed)."""
    ss, (lesson_text, _) = st.session_state, offered()
    if trained_model.builtin():
        AttentionConfig.trained(DEFAULT_SENTENCE)  # MiniLM is there (else its install hint reaches the page)
    if SENTENCE not in ss:  # the page's first run in this session: the link's sentence, else the lesson's
        ss[SENTENCE], ss[FOLLOWED] = DEFAULT_SENTENCE, lesson_text
        linked, instead = _linked_sentence(), "The page reads its default sentence instead."
        if linked is None or not use(linked, "The link's sentence", instead):
            use(lesson_text, "The sidebar's sentence", instead)
    elif ss[FOLLOWED] != lesson_text:  # the sidebar's sentence changed since: it is the newer choice
        ss[FOLLOWED] = lesson_text
        use(lesson_text, "The sidebar's sentence")
    if BOX not in ss:  # the box lost its state while another page was open
        ss[BOX] = ss[SENTENCE]
    state.view_param("sentence", ss[SENTENCE], lesson_text)
    return ss[SENTENCE]


def _linked_sentence() -> str | None:
    """The opening link's `sentence`, or the text of a trained lesson's link (`source=trained&text=...`)."""
    linked = state.view_from_url("sentence", str)
    if linked is None and state.view_from_url("source", str) == "trained":
        linked = state.view_from_url("text", str)
    return linked


def use(text: str, whose: str, instead: str = "The page shows the last sentence that worked.") -> bool:
    """Show `text` if the model can read it; otherwise keep the last sentence and remember why not."""
    try:
        trained_model.check(text)
    except ConfigError as err:
        if err.field == "source":  # the model is missing: not a problem of the sentence
            raise
        st.session_state[ERROR] = f"**{whose} cannot be read: {plain(err)}** {instead}"
        return False
    if text != st.session_state.get(SENTENCE):
        st.session_state.pop(PIECE, None)  # a picked word piece belongs to the sentence it was picked in
    st.session_state[SENTENCE] = st.session_state[BOX] = text
    return True


def typed():
    """on_change of the page's box: the typed sentence, if it works (else it stays in the box, not in use)."""
    use(st.session_state[BOX], "That sentence")


def model_changed():
    """on_change of the model picker: a picked word piece belongs to the old word pieces; a sentence the
    new model cannot read (past its bound on layers × heads × T²) gives way to the default one."""
    st.session_state.pop(PIECE, None)
    if not use(st.session_state.get(SENTENCE, DEFAULT_SENTENCE), "The sentence", "The page reads the default one."):
        use(DEFAULT_SENTENCE, "The default sentence")


def use_lesson_sentence():
    use(offered()[0], "The sidebar's sentence")


# -- the head the page opens ----------------------------------------------------------------------
# The keys of the page's layer and head controls (controls.buttons, controls.number) and of its
# projector-mode switch "Show the open head alone" (controls.flag).
LAYER, HEAD, ALONE = (controls.state_key(n, page="trained_heads") for n in ("layer", "head", "alone"))
TOP = "trained_slide_top"  # a head has just opened alone: the slide's next run starts the page at its top (once)


def open_head(layer: int, head: int):
    """A callback (a guided button, a thumbnail click): the large view shows this head, and says where it is;
    in projector mode it shows that head alone, a slide in the window (no scrolling down to it)."""
    st.session_state[LAYER], st.session_state[HEAD] = int(layer), int(head)
    if controls.projector():
        st.session_state[ALONE] = True
        opened_alone()
        st.toast(f"Layer {layer}, head {head}, alone on the screen: switch “Show the open head alone” off for the "
                 "whole page.", icon=":material/visibility:")
        return
    st.toast(f"Layer {layer}, head {head} is open under “One head, step by step”.", icon=":material/visibility:")


def opened_alone():
    """A head opens alone (`open_head` in projector mode; on_change of the switch, turned on): the slide starts
    at the page's top. Streamlit keeps the page's scroll across runs, and the browser cuts it to the slide's
    height, so that a head opened from far down the whole page started cut by the slide's height less the
    window's (205 px at 1280×720 with 13 word pieces)."""
    if st.session_state.get(ALONE):
        st.session_state[TOP] = True
