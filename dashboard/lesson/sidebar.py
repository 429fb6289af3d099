"""The sidebar: one small function per setting of the lesson, each a view of `state.lesson()`.

A widget shows the lesson's value (again, whenever the lesson changed some other way: a preset,
the reset, a link) and, when moved, proposes a new lesson (`state.propose`); a value that cannot
work keeps the last lesson, puts the widget back and says why. Every range is read from
core/limits.py.
"""

import streamlit as st

from core import MAX_TOKENS, PRESETS
from core.config import MASKS, POSITIONALS, head_choices
from core.devices import available_devices
from core.errors import ConfigError, quote
from core.limits import MAX_BOX_CHARS, MAX_D_MODEL, MAX_NUMBER_CHARS, MAX_SEED, MAX_TEMPERATURE, MIN_TEMPERATURE
from core.serial import WHOLE
from dashboard.lesson import mask_editor, rerun, state
from dashboard.text import plain

SOURCE_LABELS = {"text": "a sentence", "random": "random tokens", "manual": "hand-entered Q, K, V"}
MASK_LABELS = {"none": "none", "causal": "causal (no peeking ahead)", "padding": "padding",
               "window": "sliding window", "custom": "custom grid"}
NO_PRESET = "(choose a preset)"
_SEEN = "ctl_seen"  # field -> the lesson version its widget last showed


def _key(field: str) -> str:
    return f"ctl_{field}"


def _show(field: str, as_widget=lambda value: value):
    """Give the widget the lesson's value if the lesson moved on since the widget last showed it
    (or the widget was hidden and lost its state)."""
    ss, version = st.session_state, state.version()
    seen = ss.setdefault(_SEEN, {})
    if _key(field) not in ss or seen.get(field) != version:
        ss[_key(field)] = as_widget(getattr(state.lesson(), field))
        seen[field] = version


def _changed(field: str, parse=lambda value: value, as_widget=lambda value: value):
    """on_change: propose the widget's value; if it cannot work, put the lesson's value back
    (typed text stays in its box, so that it can be fixed: text_control says it is not in use)."""
    try:
        ok = state.propose(**_with_grid(field, parse(st.session_state[_key(field)])))
    except ValueError as err:  # the box holds something that is not a number at all
        state.refuse(str(err))
        ok = False
    if not ok and field != "text":
        st.session_state[_key(field)] = as_widget(getattr(state.lesson(), field))
    # A box that reads "1e3" is redrawn as "1000", and a refusal is said: those need a full run.
    rerun.after_change(field, shown=ok and st.session_state[_key(field)] == as_widget(getattr(state.lesson(), field)))


def _with_grid(field: str, value) -> dict:
    """The change, plus a custom grid resized to the new number of tokens (kept where it overlaps)."""
    changes = {field: value}
    cfg = state.lesson()
    if cfg.mask == "custom" and field in ("source", "text", "seq_len"):
        if field == "source" and value != "manual":
            changes.update(q=(), k=(), v=())
        try:
            tokens = cfg.replace(**changes, mask="none", custom_mask=()).num_tokens
        except ConfigError:
            return changes  # the change itself cannot work: propose() says why
        changes["custom_mask"] = mask_editor.fit_grid(cfg.custom_mask, tokens)
    elif field == "source" and value != "manual":
        changes.update(q=(), k=(), v=())
    return changes


# -- presets and reset ------------------------------------------------------------------------
def _apply_preset():
    name = st.session_state["ctl_preset"]
    if name in PRESETS:
        state.set_lesson(PRESETS[name])


def _reset():
    state.set_lesson(PRESETS["default"])
    st.session_state["ctl_preset"] = NO_PRESET


def preset_controls():
    st.selectbox("Preset", [NO_PRESET, *PRESETS], key="ctl_preset", on_change=_apply_preset,
                 help="Ready-made lessons. The ones named 'article' reproduce the listings of the article "
                      "\"Transformer Architecture and the Self-Attention Mechanism\" (Ashok Kumar Yadav) as "
                      "hand-entered Q, K, V: 2x2, its worked example; 4x8, its first listing after "
                      "torch.manual_seed(0) (x and W drawn N(0, 1), no W_O); causal, its masking listing (zero "
                      "scores under a causal mask). The Worked example page shows them.")
    st.button("Reset to the default lesson", key="ctl_reset", on_click=_reset, width="stretch")


# -- the tokens -------------------------------------------------------------------------------
def source_control() -> str:
    options = ["text", "random"] + (["manual"] if state.lesson().source == "manual" else [])
    _show("source")
    return st.radio("Tokens", options, key=_key("source"), format_func=SOURCE_LABELS.get, horizontal=True,
                    on_change=_changed, args=("source",))


def text_control():
    _show("text")
    typed = st.text_input("Text to attend over", key=_key("text"), on_change=_changed, args=("text",),
                          max_chars=MAX_BOX_CHARS, help=f"Words and punctuation become tokens; at most {MAX_TOKENS}.")
    if typed != state.lesson().text:  # kept in the box so it can be fixed; not used until it works
        try:
            state.lesson().replace(text=typed)
        except ConfigError as err:
            st.caption(f"Not in use: {plain(err)}")


def seq_len_control():
    _show("seq_len")
    st.slider("Number of tokens", 1, MAX_TOKENS, key=_key("seq_len"), on_change=_changed, args=("seq_len",))


# -- the mask ---------------------------------------------------------------------------------
def mask_control() -> str:
    _show("mask")
    return st.selectbox("Mask", MASKS, key=_key("mask"), format_func=MASK_LABELS.get, on_change=_mask_changed)


def _mask_changed():
    kind, cfg = st.session_state[_key("mask")], state.lesson()
    changes, note = {"mask": kind, "custom_mask": ()}, ""
    if kind == "custom":
        changes["custom_mask"] = mask_editor.fit_grid(cfg.custom_mask, cfg.num_tokens)
    if kind == "padding" and cfg.pad_length > cfg.num_tokens:
        changes["pad_length"] = cfg.num_tokens
        note = (f"The lesson has {cfg.num_tokens} tokens, so all of them start as real tokens: "
                "move the slider to pad the last ones.")
    if not state.propose(note, **changes):
        st.session_state[_key("mask")] = cfg.mask


def pad_length_control():
    _show("pad_length")
    T = state.lesson().num_tokens
    if T == 1:
        st.caption("One token: it is real, so nothing is padding.")
        return
    st.slider("Real tokens (the rest is padding)", 1, T, key=_key("pad_length"), on_change=_changed,
              args=("pad_length",))


def window_control():
    _show("window")
    st.slider("Window width (tokens)", 1, MAX_TOKENS, key=_key("window"), on_change=_changed, args=("window",),
              help="Each query sees itself and the width − 1 tokens before it.")


# -- the model --------------------------------------------------------------------------------
def whole_number(label: str, low: int, high: int):
    """A parser for a typed whole number in the digits 0 to 9 ("24"); "1e3", "1,000", "1_000" or
    other scripts' digits are refused, never read as some number the student did not write."""
    wrong = f"{label} must be a whole number from {low:,} to {high:,}, written with the digits 0 to 9"

    def parse(text) -> int:
        text = str(text).strip()
        if not text:
            raise ValueError(f"{label} is empty: type a whole number from {low:,} to {high:,}.")
        if not WHOLE.fullmatch(text):
            raise ValueError(f"{wrong}; got {quote(text)}.")
        return int(text)

    return parse


def d_model_control() -> int:
    _show("d_model", str)
    st.text_input(f"d_model (size of each token vector, 1 to {MAX_D_MODEL:,})", key=_key("d_model"),
                  on_change=_d_model_changed, max_chars=MAX_NUMBER_CHARS)
    return state.lesson().d_model


def _d_model_changed():
    try:
        d_model = whole_number("d_model", 1, MAX_D_MODEL)(st.session_state[_key("d_model")])
    except ValueError as err:
        state.refuse(str(err))
        st.session_state[_key("d_model")] = str(state.lesson().d_model)
        return
    heads = state.lesson().num_heads
    note = ""
    if 1 <= d_model <= MAX_D_MODEL and d_model % heads:  # keep the nearest head count that divides
        heads = max(h for h in head_choices(d_model) if h <= heads)
        note = f"{state.lesson().num_heads} heads do not divide d_model {d_model}, so the lesson now has {heads}."
    if not state.propose(note, d_model=d_model, num_heads=heads):
        st.session_state[_key("d_model")] = str(state.lesson().d_model)


def heads_control():
    """Only heads that divide d_model can be picked."""
    d_model = state.lesson().d_model
    options = head_choices(d_model)
    _show("num_heads")
    heads = st.selectbox("Heads", options, key=_key("num_heads"), on_change=_changed, args=("num_heads",),
                         help="Each head gets d_model / heads dimensions (d_k).")
    st.caption(f"d_k = {d_model} / {heads} = **{d_model // heads}**")


def positional_control():
    _show("positional")
    st.selectbox("Positional encoding", POSITIONALS, key=_key("positional"), on_change=_changed,
                 args=("positional",))


def scale_control():
    _show("scale")
    st.toggle("Divide the scores by √d_k", key=_key("scale"), on_change=_changed, args=("scale",))


def temperatures(current: float) -> list[float]:
    """1, 1.5, 2, 3, 5, 7 times the powers of ten between the limits, and the lesson's own value."""
    steps = {round(m * 10.0**e, 6) for e in range(-3, 4) for m in (1, 1.5, 2, 3, 5, 7)}
    return sorted({t for t in steps if MIN_TEMPERATURE <= t <= MAX_TEMPERATURE} | {current})


def temperature_control():
    _show("temperature")
    st.select_slider("Softmax temperature", temperatures(state.lesson().temperature), key=_key("temperature"),
                     on_change=_changed, args=("temperature",),
                     help="Scores are divided by it: low = sharper, high = flatter.")


def seed_control():
    _show("seed", str)
    st.text_input(f"Seed of the random weights (0 to {MAX_SEED:,})", key=_key("seed"), on_change=_changed,
                  args=("seed", whole_number("The seed", 0, MAX_SEED), str), max_chars=MAX_NUMBER_CHARS)


def device_control():
    options = ["auto", *available_devices()]
    _show("device")
    if st.session_state[_key("device")] not in options:
        st.session_state[_key("device")] = "auto"
    st.selectbox("Device", options, key=_key("device"), on_change=_changed, args=("device",))


# -- the whole sidebar ------------------------------------------------------------------------
def sidebar():
    """Draw every control of the lesson."""
    with st.sidebar:
        preset_controls()
        st.subheader("Tokens", anchor=False)
        source = source_control()
        if source == "text":
            text_control()
        elif source == "random":
            seq_len_control()
        else:
            st.caption("Q, K and V as entered by the preset (the article's example) or the link, used as they are: "
                       "no W matrices make them.")
        st.subheader("Mask", anchor=False)
        mask = mask_control()
        if mask == "padding":
            pad_length_control()
        elif mask == "window":
            window_control()
        elif mask == "custom":
            mask_editor.editor()
        st.subheader("Model", anchor=False)
        d_model_control()
        heads_control()
        rerun.settings(page_only_controls)


def page_only_controls():
    """The settings that show nowhere else in the sidebar (rerun.PAGE_ONLY): the rerun policy draws
    them as a fragment of their own."""
    positional_control()
    scale_control()
    temperature_control()
    seed_control()
    device_control()
