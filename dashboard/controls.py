"""The sidebar: one small function per control, each returning its value.

The lesson lives in `st.session_state` (one key per widget, `ctl_<field>`) and is mirrored in
the URL (`st.query_params`, only the settings that differ from the defaults), so a copied
address reproduces the screen. A link or a control that cannot work shows a plain message.
"""

import numpy as np
import pandas as pd
import streamlit as st

from core import MAX_TOKENS, PRESETS, AttentionConfig, ConfigError, available_devices
from core.config import MASKS, MAX_D_MODEL, MAX_HEADS, MAX_SEED, POSITIONALS

from .charts import token_labels
from .links import DEFAULT, WIDGET_FIELDS, config_from_url, sync_url

SOURCE_LABELS = {"text": "a sentence", "random": "random tokens", "manual": "hand-entered Q, K, V"}
MASK_LABELS = {"none": "none", "causal": "causal (no peeking ahead)", "padding": "padding",
               "window": "sliding window", "custom": "custom grid"}
NO_PRESET = "(choose a preset)"


def _key(field: str) -> str:
    return f"ctl_{field}"


# -- the state ------------------------------------------------------------------------------
def load(cfg: AttentionConfig):
    """Put a whole lesson into the widgets (a preset, the reset, a link)."""
    ss = st.session_state
    for f in WIDGET_FIELDS:
        ss[_key(f)] = getattr(cfg, f)
    ss["lesson_custom_mask"] = cfg.custom_mask
    ss["lesson_qkv"] = (cfg.q, cfg.k, cfg.v)
    ss["lesson_cfg"] = cfg
    ss["mask_editor_version"] = ss.get("mask_editor_version", 0) + 1


def current() -> AttentionConfig:
    """The lesson every page shows (the last one that worked)."""
    return st.session_state.get("lesson_cfg", DEFAULT)


def _seed(field: str):
    """A control hidden in an earlier run lost its state: give it back the lesson's value."""
    if _key(field) not in st.session_state:
        st.session_state[_key(field)] = getattr(current(), field)


# -- presets and reset ------------------------------------------------------------------------
def _apply_preset():
    name = st.session_state["ctl_preset"]
    if name in PRESETS:
        load(PRESETS[name])


def _reset():
    load(DEFAULT)
    st.session_state["ctl_preset"] = NO_PRESET


def preset_controls():
    st.selectbox("Preset", [NO_PRESET, *PRESETS], key="ctl_preset", on_change=_apply_preset,
                 help="Ready-made lessons; the article's examples start with 'article'.")
    st.button("Reset to the default lesson", key="ctl_reset", on_click=_reset, width="stretch")


# -- the tokens -------------------------------------------------------------------------------
def source_control() -> str:
    _seed("source")
    has_manual = bool(st.session_state.get("lesson_qkv", ((),))[0])
    options = ["text", "random"] + (["manual"] if has_manual else [])
    if st.session_state[_key("source")] not in options:
        st.session_state[_key("source")] = "text"
    return st.radio("Tokens", options, key=_key("source"), format_func=SOURCE_LABELS.get, horizontal=True)


def text_control() -> str:
    _seed("text")
    return st.text_input("Text to attend over", key=_key("text"), max_chars=2000,
                         help=f"Words and punctuation become tokens; at most {MAX_TOKENS}.")


def seq_len_control() -> int:
    _seed("seq_len")
    return st.slider("Number of tokens", 1, MAX_TOKENS, key=_key("seq_len"))


# -- the model --------------------------------------------------------------------------------
def d_model_control() -> int:
    _seed("d_model")
    return st.number_input("d_model (size of each token vector)", 1, MAX_D_MODEL, step=1, key=_key("d_model"))


def heads_control(d_model: int) -> int:
    """Only heads that divide d_model can be picked; a d_model change keeps the nearest one."""
    _seed("num_heads")
    options = [h for h in range(1, min(MAX_HEADS, d_model) + 1) if d_model % h == 0]
    chosen = int(st.session_state[_key("num_heads")])
    if chosen not in options:
        st.session_state[_key("num_heads")] = max(h for h in options if h <= max(chosen, 1))
    heads = st.selectbox("Heads", options, key=_key("num_heads"),
                         help="Each head gets d_model / heads dimensions (d_k).")
    st.caption(f"d_k = {d_model} / {heads} = **{d_model // heads}**")
    return heads


# -- the mask ---------------------------------------------------------------------------------
def mask_control() -> str:
    _seed("mask")
    return st.selectbox("Mask", MASKS, key=_key("mask"), format_func=MASK_LABELS.get)


def pad_length_control() -> int:
    _seed("pad_length")
    return st.number_input("Real tokens (the rest is padding)", 1, MAX_TOKENS, step=1, key=_key("pad_length"))


def window_control() -> int:
    _seed("window")
    return st.number_input("Window width (tokens)", 1, MAX_TOKENS, step=1, key=_key("window"))


def _fit_grid(grid, T: int) -> np.ndarray:
    """The student's grid at size T: kept where it overlaps, causal where new."""
    out = np.tril(np.ones((T, T), dtype=bool))
    old = np.array(grid, dtype=bool).reshape(len(grid), -1) if len(grid) else np.zeros((0, 0), bool)
    n = min(T, old.shape[0])
    out[:n, :n] = old[:n, :n]
    return out


def custom_mask_control(tokens) -> tuple:
    """A grid of checkboxes, in a popover wide enough for it: row = a query, column = a key."""
    labels = token_labels(tokens)
    grid = _fit_grid(st.session_state.get("lesson_custom_mask", ()), len(labels))
    version = st.session_state.get("mask_editor_version", 0)
    columns = {label: st.column_config.CheckboxColumn(label, width="small") for label in labels}
    with st.popover("Edit the custom mask", icon=":material/grid_on:", width="stretch"):
        st.caption("Tick the keys (columns) each query (row) may attend to. "
                   "Untick a whole row to see a blocked query.")
        edited = st.data_editor(pd.DataFrame(grid, index=labels, columns=labels), column_config=columns,
                                key=f"ctl_mask_grid_{version}_{len(labels)}", width="content")
    mask = tuple(tuple(bool(x) for x in row) for row in np.asarray(edited, dtype=bool))
    st.session_state["lesson_custom_mask"] = mask
    st.caption(f"{sum(map(sum, mask))} of {len(labels) ** 2} cells may attend.")
    return mask


# -- the rest ---------------------------------------------------------------------------------
def positional_control() -> str:
    _seed("positional")
    return st.selectbox("Positional encoding", POSITIONALS, key=_key("positional"))


def scale_control() -> bool:
    _seed("scale")
    return st.toggle("Divide the scores by √d_k", key=_key("scale"))


def temperature_control() -> float:
    _seed("temperature")
    top = max(5.0, float(st.session_state[_key("temperature")]))
    return st.slider("Softmax temperature", 0.05, top, step=0.05, key=_key("temperature"),
                     help="Scores are divided by it: low = sharper, high = flatter.")


def seed_control() -> int:
    _seed("seed")
    return st.number_input("Seed (the random weights)", 0, MAX_SEED, step=1, key=_key("seed"))


def device_control() -> str:
    _seed("device")
    options = ["auto", *available_devices()]
    if st.session_state[_key("device")] not in options:
        st.session_state[_key("device")] = "auto"
    return st.selectbox("Device", options, key=_key("device"))


# -- the whole sidebar ------------------------------------------------------------------------
def _tokens_of(values: dict) -> list[str]:
    """The tokens the chosen inputs give, or the last lesson's if they cannot work yet."""
    try:
        return current().replace(**{**_clean(values), "mask": "none", "positional": "none"}).tokens
    except ConfigError:
        return current().tokens


def sidebar_values() -> dict:
    """Draw every control; return the settings they hold (not yet validated)."""
    v = {}
    with st.sidebar:
        preset_controls()
        st.subheader("Tokens")
        v["source"] = source_control()
        if v["source"] == "text":
            v["text"] = text_control()
        elif v["source"] == "random":
            v["seq_len"] = seq_len_control()
        else:
            v["q"], v["k"], v["v"] = st.session_state["lesson_qkv"]
            st.caption("Q, K and V as entered by the preset (the article's example).")
        st.subheader("Mask")
        v["mask"] = mask_control()
        if v["mask"] == "padding":
            v["pad_length"] = pad_length_control()
        elif v["mask"] == "window":
            v["window"] = window_control()
        elif v["mask"] == "custom":
            v["custom_mask"] = custom_mask_control(_tokens_of(v))
        st.subheader("Model")
        v["d_model"] = d_model_control()
        v["num_heads"] = heads_control(v["d_model"])
        v["positional"] = positional_control()
        v["scale"] = scale_control()
        v["temperature"] = temperature_control()
        v["seed"] = seed_control()
        v["device"] = device_control()
    return v


def lesson_config() -> AttentionConfig:
    """Read the link (first run), draw the sidebar, validate: the lesson every page shows."""
    ss = st.session_state
    if "lesson_cfg" not in ss:
        cfg, ss["lesson_notice"] = config_from_url(st.query_params.to_dict())
        load(cfg)
    values = sidebar_values()
    try:
        cfg = current().replace(**_clean(values))
    except ConfigError as err:
        st.error(f"**{err}** The page shows the last settings that worked.", icon="⚠️")
        cfg = current()
    if ss.get("lesson_notice"):
        st.warning(ss["lesson_notice"], icon="🔗")
        if cfg.key() != DEFAULT.key():
            ss["lesson_notice"] = ""
    ss["lesson_cfg"] = cfg
    sync_url(cfg)
    return cfg


def _clean(values: dict) -> dict:
    """Settings as the config wants them: matrices only where used, plain Python numbers."""
    out = dict(values)
    for f in ("seq_len", "d_model", "num_heads", "pad_length", "window", "seed"):
        if f in out:
            out[f] = int(out[f])
    if "temperature" in out:
        out["temperature"] = float(out["temperature"])
    out["custom_mask"] = values.get("custom_mask", ()) if values.get("mask") == "custom" else ()
    if values.get("source") != "manual":
        out["q"] = out["k"] = out["v"] = ()
    return out


def head_control(num_heads: int) -> int:
    """Pick one head (0-based); mirrored in the URL as `head` (1-based)."""
    if num_heads == 1:
        st.caption("One head.")
        return 0
    key = "view_head"
    if key not in st.session_state:
        raw = st.query_params.get("head", "1")
        st.session_state[key] = int(raw) if raw.isdigit() and 1 <= int(raw) <= num_heads else 1
    st.session_state[key] = min(max(1, st.session_state[key]), num_heads)
    with st.columns([1, 2])[0]:
        head = st.slider("Head to inspect", 1, num_heads, key=key)
    if head == 1:
        st.query_params.pop("head", None)  # the default stays out of the link
    elif st.query_params.get("head") != str(head):
        st.query_params["head"] = str(head)
    return head - 1
