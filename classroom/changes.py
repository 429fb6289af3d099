"""Named one-setting changes of a lesson: the "what if" of a change question and of the
Compare page. Each name maps a lesson to the changed lesson and to a phrase that says,
truthfully, what changed ("the temperature goes from 1 to 0.1").

Names: "temperature*0.1", "temperature*10", "scale:off", "scale:on", "mask:<kind>"
(through `with_mask`, the one rule the Masking page and the videos share),
"positional:<kind>", "heads*2", "heads/2", "seed+1".
"""

import math

from core.config import MASKS, POSITIONALS, AttentionConfig
from core.errors import ConfigError, quote
from core.lesson import PAD_TOKEN, with_mask

CHANGES = ("temperature*0.1", "temperature*10", "scale:off", "scale:on",
           *(f"mask:{m}" for m in MASKS), *(f"positional:{p}" for p in POSITIONALS),
           "heads*2", "heads/2", "seed+1")
LABELS = {"temperature*0.1": "temperature × 0.1", "temperature*10": "temperature × 10",
          "scale:off": "÷√d_k off", "scale:on": "÷√d_k on", "heads*2": "heads × 2", "heads/2": "heads ÷ 2",
          "seed+1": "seed + 1", **{f"mask:{m}": f"mask: {m}" for m in MASKS},
          **{f"positional:{p}": f"positional: {p}" for p in POSITIONALS}}
_POSITIONS = {"none": "none", "sinusoidal": "sinusoidal (added to the token vectors)",
              "learned": "learned (a table of vectors added to the tokens; here random from the seed, as a "
                         "learned table starts)",
              "rotary": "rotary (each query and key turned by its position)"}


def apply_change(cfg: AttentionConfig, name: str) -> AttentionConfig:
    """The lesson after the change `name`; ConfigError if it does not apply to this lesson."""
    if name not in CHANGES:
        raise ConfigError(f"Unknown change {quote(name)}: choose one of {', '.join(CHANGES)}.", "change")
    setting, _, value = name.partition(":")
    if name.startswith("temperature"):
        return cfg.replace(temperature=cfg.temperature * (0.1 if name.endswith("0.1") else 10))
    if setting == "scale":
        return cfg.replace(scale=value == "on")
    if setting == "mask":
        return with_mask(cfg, value)
    if setting == "positional":
        return cfg.replace(positional=value)
    if name == "heads*2":
        return cfg.replace(num_heads=cfg.num_heads * 2)
    if name == "heads/2":
        if cfg.num_heads % 2:
            raise ConfigError(f"{cfg.num_heads} heads cannot be halved.", "num_heads")
        return cfg.replace(num_heads=cfg.num_heads // 2)
    return cfg.replace(seed=cfg.seed + 1)


def available_changes(cfg: AttentionConfig) -> list[str]:
    """The changes that make a valid lesson different from `cfg` (a seed change only where
    the seed draws something: hand-entered lessons use none)."""
    out = []
    for name in CHANGES:
        try:
            changed = apply_change(cfg, name)
        except ConfigError:
            continue
        if changed != cfg and not (name == "seed+1" and cfg.source == "manual"):
            out.append(name)
    return out


def describe_change(cfg: AttentionConfig, name: str) -> str:
    """What the change does to this lesson, as a clause: "the temperature goes from 1 to 0.1"."""
    after = apply_change(cfg, name)
    setting, _, value = name.partition(":")
    if name.startswith("temperature"):
        return f"the temperature goes from {cfg.temperature:g} to {after.temperature:g}"
    if setting == "scale":
        root = _root(cfg.d_k)
        return (f"the scores are divided by √d_k = {root}" if value == "on"
                else f"the scores are no longer divided by √d_k = {root}")
    if setting == "mask":
        return _describe_mask(cfg, value, after)
    if setting == "positional":
        return f"the position encoding changes from {_POSITIONS[cfg.positional]} to {_POSITIONS[value]}"
    if name.startswith("heads"):
        return (f"the lesson uses {_count(after.num_heads, 'head')} of d_k = {after.d_k} "
                f"instead of {_count(cfg.num_heads, 'head')} of d_k = {cfg.d_k}")
    drawn = ["W_Q", "W_K", "W_V", "W_O"] + (["the input vectors"] if cfg.source == "random" else []) \
        + (["the position table"] if cfg.positional == "learned" else [])
    return f"the seed goes from {cfg.seed} to {after.seed} ({', '.join(drawn[:-1])} and {drawn[-1]} drawn afresh)"


def _root(d_k: int) -> str:
    r = math.sqrt(d_k)
    return f"√{d_k} = {r:g}" if r.is_integer() else f"√{d_k} ≈ {r:.2f}"


def _describe_mask(cfg: AttentionConfig, kind: str, after: AttentionConfig) -> str:
    if kind == "none":
        return f"the {cfg.mask} mask is switched off (every query may then attend to every key)"
    what = {
        "causal": "the causal mask (each query may attend only to itself and earlier tokens)",
        "window": f"a sliding-window mask of width {after.window} ({_window(after.window)})",
        "padding": _padding(cfg, after),
        "custom": "a custom mask (each query may attend to itself and earlier tokens, except the first "
                  "query, which may attend to none)",
    }[kind]
    return f"{what} is switched on" if cfg.mask == "none" else f"the {cfg.mask} mask is replaced by {what}"


def _window(w: int) -> str:
    if w == 1:
        return "each query may attend only to itself"
    return f"each query may attend only to itself and the {_count(w - 1, 'token')} before it"


def _padding(cfg: AttentionConfig, after: AttentionConfig) -> str:
    extra = after.num_tokens - cfg.num_tokens
    if extra == 0:
        return "a padding mask that covers no token (the lesson has no room for padding tokens)"
    word = f"“{PAD_TOKEN}”" if cfg.source == "text" else "padding"
    return f"a padding mask over {_count(extra, word + ' token')} appended to the lesson (no query may attend to them)"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"
