"""Every URL parameter through its whole accepted range and one step past each end.

A link opens either exactly the lesson (or view) it describes, or the defaults with a message that
says why; never an exception on the screen.
"""

import pytest

from core import MAX_TOKENS, PRESETS, AttentionConfig, ConfigError
from core.config import MASKS
from core.limits import MAX_D_MODEL, MAX_ENTRY, MAX_HEADS, MAX_SEED, MAX_TEMPERATURE, MIN_TEMPERATURE

from .conftest import messages, no_exception

DEFAULT = PRESETS["default"]
T = DEFAULT.num_tokens


def _ends(low, high, step=1):
    return [low - step, low, low + step, high - step, high, high + step]


def _grid(n):
    return ";".join("".join("1" if j <= i else "0" for j in range(n)) for i in range(n))


LINKS = (
    [{"source": s} for s in ("text", "random", "manual", "tape")]
    + [{"text": t} for t in ("", "a", " ".join(["w"] * MAX_TOKENS), " ".join(["w"] * (MAX_TOKENS + 1)),
                             "x" * 2000, "x" * 2001, "didn't", "<b>bold</b> & 'quotes'")]
    + [{"source": "random", "seq_len": str(n)} for n in _ends(1, MAX_TOKENS)]
    + [{"d_model": str(d), "num_heads": "1"} for d in _ends(1, MAX_D_MODEL)]
    + [{"d_model": "64", "num_heads": str(h)} for h in _ends(1, MAX_HEADS)]
    + [{"mask": m} for m in (*MASKS, "diagonal")]
    + [{"mask": "padding", "pad_length": str(n)} for n in _ends(1, T)]
    + [{"mask": "window", "window": str(w)} for w in _ends(1, MAX_TOKENS)]
    + [{"mask": "custom", "custom_mask": g} for g in (_grid(T), _grid(T - 1), "1x;01")]
    + [{"positional": p} for p in ("none", "sinusoidal", "learned", "rotary", "alibi")]
    + [{"scale": s} for s in ("true", "false", "1", "0", "maybe")]
    + [{"temperature": str(t)} for t in (MIN_TEMPERATURE * 0.99, MIN_TEMPERATURE, 0.011, 99.99, MAX_TEMPERATURE,
                                         MAX_TEMPERATURE * 1.0001, "nan", "inf", "warm")]
    + [{"seed": str(s)} for s in _ends(0, MAX_SEED)]
    + [{"device": d} for d in ("auto", "cpu", "cuda", "mps", "tpu")]
    + [{"source": "manual", "d_model": "2", "num_heads": "1", "q": q, "k": "1,0;0,1", "v": "10,0;0,20"}
       for q in ("1,0;0,1", f"{MAX_ENTRY:g},0;0,1", f"{MAX_ENTRY * 1.0001:g},0;0,1", "nan,0;0,1", "1,0")]
)


def _expected(link: dict):
    """(the lesson the link describes, or None when it cannot work) per the config's own rules."""
    try:
        return AttentionConfig.from_dict(link)
    except ConfigError:
        return None


@pytest.mark.parametrize("link", LINKS, ids=lambda q: "&".join(f"{k}={v[:12]}" for k, v in q.items()))
def test_a_link_opens_its_exact_lesson_or_the_defaults_with_a_message(make_app, link):
    at = make_app(query=link)
    no_exception(at)
    lesson = at.session_state["lesson"]
    expected = _expected(link)
    if expected is None and "device" in link:  # e.g. made on a machine with a GPU: same lesson, another device
        assert lesson == AttentionConfig.from_dict({**link, "device": "auto"})
        assert "instead" in messages(at)
    elif expected is None:
        assert lesson == DEFAULT
        assert "cannot work" in messages(at)
    else:
        assert lesson == expected
        assert not messages(at)


VIEWS = (
    [("attention", {"head": str(h)}, 1 <= h <= 4) for h in (0, 1, 2, 3, 4, 5)]
    + [("attention", {"step": str(s)}, 1 <= s <= 4) for s in (0, 1, 4, 5)]
    + [("why_scale", {"keys": str(k)}, 2 <= k <= MAX_TOKENS) for k in _ends(2, MAX_TOKENS)]
    + [("why_scale", {"dk": str(d)}, d in (1, 4, 512)) for d in (0, 1, 4, 3, 512, 513)]
    + [("positional", {"shuffle": str(s)}, 1 <= s <= 99) for s in _ends(1, 99)]
    + [("masking", {"show": m}, m in MASKS) for m in (*MASKS, "all")]
    + [("block", {"layout": v}, v in ("post-LN", "pre-LN")) for v in ("post-LN", "pre-LN", "mid-LN")]
)


DEFAULT_VIEWS = {"head": "1", "step": "3", "keys": "16", "dk": str(DEFAULT.d_k), "shuffle": "1", "show": "causal",
                 "layout": "post-LN"}  # left out of the URL


@pytest.mark.parametrize("page,link,works", VIEWS, ids=lambda v: str(v))
def test_a_view_link_opens_that_view_or_says_why_not(make_app, page, link, works):
    at = make_app(query=link, page=page)
    no_exception(at)
    (name, value), = link.items()
    if works:
        assert "does not have" not in messages(at)
        assert dict(at.query_params).get(name, DEFAULT_VIEWS[name]) == value
    else:
        assert "which this page does not have" in messages(at)
        assert name not in at.query_params


# -- what a link asks for that the lab does not take as written (issue 28, item 9) ----------------
def test_a_misspelt_key_is_named_with_the_key_it_may_mean(make_app):
    at = make_app(query={"heads": "3", "d_model": "8"})
    no_exception(at)
    assert at.session_state["lesson"] == DEFAULT.replace(d_model=8)
    said = messages(at)
    assert "does not know 1 of this link's settings" in said and "'heads' (did you mean head or num_heads?)" in said


def test_unknown_keys_are_named_not_dropped_silently(make_app):
    at = make_app(query={"colour": "red", "zzz": "1"})
    no_exception(at)
    assert at.session_state["lesson"] == DEFAULT
    assert "ignored them: 'colour', 'zzz'" in messages(at)


def test_a_key_given_fifty_times_is_said_with_the_value_used(make_app):
    at = make_app(query={"seed": [str(i) for i in range(50)]})
    no_exception(at)
    assert at.session_state["lesson"].seed == 49
    assert "This link gives seed 50 times; the lab used the last, '49'." in messages(at)


@pytest.mark.parametrize("link", [{"window": "0"}, {"window": "65"}, {"pad_length": "0"}, {"pad_length": "65"}])
def test_a_mask_setting_out_of_range_is_refused_even_without_its_mask(make_app, link):
    """Kept before, it made that mask impossible to choose later except by Reset."""
    at = make_app(query=link)
    no_exception(at)
    assert at.session_state["lesson"] == DEFAULT
    assert "cannot work" in messages(at)
    at.sidebar.selectbox(key="ctl_mask").set_value(next(iter(link)).replace("pad_length", "padding")).run()
    no_exception(at)
    assert at.session_state["lesson"].mask in ("window", "padding"), "that mask can be chosen"
