"""The Trained heads page's model: which one it reads, picked from the models core finds on this
machine (core.models: the built-in MiniLM, ATTENTION_LAB_MODELS, the Hugging Face cache), what the
page says about it, and the measures that fit its family.

The model in use is kept in the session by name ("" = MiniLM) and mirrored in the URL (`model`); a
link to a model this machine lacks opens MiniLM with a notice. A name from a link only ever selects
one of the listed models (core never reads a name as a path). Models are loaded by core, once per
process, in its memory-bounded LRU; the discovery itself is rescanned by core every half minute.
"""

import math

import streamlit as st

from core import MAX_TOKENS, MINILM, PATTERNS, AttentionConfig
from core.errors import quote
from core.head_patterns import CAUSAL_PATTERNS, strongest
from core.limits import MAX_ATTENTION_CELLS
from core.models import FROM_CACHE, FROM_ENV, ModelInfo, discover
from dashboard.lesson import state
from dashboard.text import plain

MODEL = "trained_model"  # session: the model the page reads, by name ("" = the built-in MiniLM)
PICKER = "trained_model_picker"  # the picker's own key (its value: a name; MiniLM by its name)
NOTICE = "trained_model_notice"  # why the model asked for is not the one shown (said once)

# "spread" is core's key (URLs and tests keep it); students read "evenness": "spread" is the scores' standard
# deviation on the Why √d_k page.
EVENNESS, CAUSAL_EVENNESS = "evenness (entropy ÷ ln T)", "evenness (entropy ÷ ln of tokens seen)"
# Each family's measures: core's pattern name -> the page's short words for it (core says each in full).
MEASURES = {"previous": "mean weight on the previous piece", "next": "mean weight on the next piece",
            "cls": "mean weight on [CLS]", "sep": "mean weight on [SEP]", "self": "mean weight on itself",
            "spread": "mean row entropy ÷ ln T (evenness)"}
CAUSAL_MEASURES = {"previous": "mean weight on the previous token", "first": "mean weight on the first token",
                   "self": "mean weight on itself",
                   "spread": "mean row entropy ÷ ln(number of tokens the row sees) (evenness)"}
COLUMNS = {"previous": "previous", "next": "next", "cls": "[CLS]", "sep": "[SEP]", "self": "itself",
           "entropy": "entropy (nats)", "spread": EVENNESS}
CAUSAL_COLUMNS = {"previous": "previous", "first": "first", "self": "itself", "entropy": "entropy (nats)",
                  "spread": CAUSAL_EVENNESS}


def listed() -> list[ModelInfo]:
    """The models the page can open, MiniLM first (listed even when its package is missing: the page then
    says how to install it)."""
    return [m for m in discover() if not m.problem or m.built_in]


def name() -> str:
    return st.session_state.get(MODEL, "")


def info() -> ModelInfo:
    """The model in use (MiniLM's entry when it is MiniLM)."""
    wanted = name() or MINILM.name
    return next((m for m in listed() if m.name == wanted), discover()[0])


def builtin() -> bool:
    return name() == ""


def measures() -> dict:
    return CAUSAL_MEASURES if info().causal else MEASURES


def columns() -> dict:
    return CAUSAL_COLUMNS if info().causal else COLUMNS


def described() -> dict:
    """core's sentence for each measure of this family."""
    return CAUSAL_PATTERNS if info().causal else PATTERNS


def current() -> str:
    """At the top of each full run: the model in use; the opening link's on a session's first run."""
    ss, names = st.session_state, {m.name for m in listed()}
    if MODEL not in ss:
        ss[MODEL] = ""
        linked = state.view_from_url("model", str)
        if linked is not None and linked != MINILM.name:
            if linked in names:
                ss[MODEL] = linked
            else:
                ss[NOTICE] = (f"This link asks for the model {quote(linked, marks='“”')}, which this machine does "
                              f"not have, so the page reads {MINILM.name} instead.")
    elif ss[MODEL] and ss[MODEL] not in names:
        ss[NOTICE] = (f"The model {quote(ss[MODEL], marks='“”')} is no longer on this machine, so the page reads "
                      f"{MINILM.name}.")
        ss[MODEL] = ""
    ss[PICKER] = ss[MODEL] or MINILM.name
    state.view_param("model", ss[MODEL], "")
    return ss[MODEL]


def picker(changed):
    """The model picker: name, family, layers × heads, size on disk. `changed()`: called once another
    model is in use (the page checks that it can read the sentence)."""
    if st.session_state.get(NOTICE):
        st.warning(plain(st.session_state.pop(NOTICE)), icon="🔎")
    models = listed()
    labels = {m.name: m.label() for m in models}
    st.selectbox("Model", list(labels), key=PICKER, format_func=labels.get, on_change=_picked, args=(changed,),
                 help="The built-in model, the folders named in ATTENTION_LAB_MODELS and the models in this "
                      "machine's Hugging Face cache (docs/models.md).")


def unopenable():
    """The folders named in ATTENTION_LAB_MODELS that the lab cannot open, each with its sentence."""
    hidden = [m for m in discover() if m.problem and m.source == FROM_ENV]
    if hidden:
        with st.expander(f"{len(hidden)} folder(s) in ATTENTION_LAB_MODELS that the lab cannot open"):
            st.markdown("\n".join(f"- {plain(m.problem)}" for m in hidden))


def _picked(changed):
    chosen = st.session_state[PICKER]
    st.session_state[MODEL] = "" if chosen == MINILM.name else chosen
    changed()


def introduction():
    """The page's first paragraph and caption, for the model in use."""
    if builtin():
        st.markdown(
            "The attention pages use random W matrices, and Watch it learn trains a tiny model of its own. This page "
            f"shows the weights of a large model trained elsewhere: **{MINILM.name}**, a BERT encoder of "
            f"{MINILM.layers} layers × {MINILM.heads} heads (d_model {MINILM.d_model}, "
            f"d_k {MINILM.d_model // MINILM.heads}). It is **distilled**: MiniLM "
            "(Wang et al. 2020) trained a 12-layer student to match only the self-attention of a larger teacher's "
            "last layer (its attention distributions and its value relations: the softmax of the scaled dot products "
            "of the values with each other; both matched by KL divergence), and this one keeps every second of the "
            "student's layers; sentence-transformers then "
            "**fine-tuned** it on over a billion sentence "
            "pairs so that sentences of similar meaning get nearby vectors (licence Apache-2.0). The lab runs it with "
            "its own attention code, from the weights its package ships. Every pattern below is **measured on the "
            "sentence shown, and only on it**: another sentence can give other numbers.")
        st.caption("Of the sidebar's settings only its sentence reaches this page: the trained model has its own "
                   "sizes, its own learned positions, ÷√d_k and temperature 1, and for one unpadded sentence its "
                   "attention mask blocks nothing.")
        unopenable()
        return
    m = info()
    where = "this machine's Hugging Face cache" if m.source == FROM_CACHE else "a folder named in ATTENTION_LAB_MODELS"
    kind = ("a GPT-2 decoder: each token attends only to itself and the tokens before it (a causal mask)"
            if m.causal else "a BERT-family encoder: every word piece attends to every other")
    st.markdown(
        "The attention pages use random W matrices, and Watch it learn trains a tiny model of its own. This page "
        f"reads **{plain(m.name)}**, from "
        f"{where}: {kind}; {m.layers} layers × {m.heads} heads, d_model {m.d_model}, d_k {m.d_model // m.heads}. "
        "The lab runs it with its own attention code, from the weights in its folder, as they are: the lab does "
        "not know how they were trained (random weights would show here as readily as learned ones). Every pattern "
        "below is **measured on the sentence shown, and only on it**: another sentence can give other numbers.")
    mask = "the causal mask" if m.causal else "no mask"
    st.caption(f"Of the sidebar's settings only its sentence reaches this page: the model has its own sizes, {mask}, "
               "its own learned positions, ÷√d_k and temperature 1.")
    unopenable()


def piece_notes(tokens) -> list[str]:
    """What the special pieces are, for a model other than MiniLM (MiniLM's own notes say more)."""
    if info().causal:
        return ["GPT-2's byte-level tokenizer adds no [CLS] or [SEP]. **Ġ** marks a token that begins with a "
                "space: the space is part of the token."]
    notes = []
    if tokens and tokens[0] == "[CLS]":
        notes.append("**[CLS]** is put first and **[SEP]** last by BERT's tokenizer.")
    if any(t.startswith("##") for t in tokens):
        notes.append("**##** marks a piece that continues the word before it.")
    return notes


def length_help() -> str:
    """The sentence box's help: how long a sentence this model may read, and why."""
    m = info()
    most = min(MAX_TOKENS, math.isqrt(MAX_ATTENTION_CELLS // (m.layers * m.heads)))
    pieces = "tokens" if m.causal else "word pieces, [CLS] and [SEP] included"
    why = "" if most == MAX_TOKENS else (
        f" (the lab computes at most {MAX_ATTENTION_CELLS:,} attention weights per sentence, layers × heads × T², "
        f"and this model has {m.layers} × {m.heads} heads)")
    return f"At most {most} {pieces}{why}."


def check(text: str) -> None:
    """Raise the ConfigError that the model in use has against `text` (none: it can read it)."""
    AttentionConfig.trained(text, model=name())



def strongest_heads(measured: dict, open_head):
    """For a model other than MiniLM: no notes (the lab's notes are checked on MiniLM alone), only the heads
    that score highest on each of core's measures on this sentence."""
    st.subheader("The strongest measured patterns", anchor=False)
    st.caption("The lab's guided notes were checked on MiniLM only, so for this model the page names no head's role: "
               "here are the three heads that score highest on each measure (lowest on entropy and evenness: the "
               "most focused), on this sentence only.")
    for pattern, words in measures().items():
        lowest = pattern in ("entropy", "spread")  # core.strongest ranks these from the lowest: the most focused
        text = described()[pattern]
        heads = strongest(measured, pattern, min(3, measured[pattern].size))
        with st.container(border=True):
            st.markdown(f"**{'Lowest' if lowest else 'Highest'} {words}.** {text[0].upper()}{text[1:]}.")
            for (layer, head, value), column in zip(heads, st.columns(3), strict=False):
                column.button(f"Layer {layer}, head {head}: {value:.2f}", on_click=open_head, args=(layer, head),
                              key=f"trained_strong_{pattern}_{layer}_{head}")
