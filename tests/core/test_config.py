"""`AttentionConfig`: messages a student understands, and exact round trips."""

import json

import pytest
import torch

from core import PRESETS, AttentionConfig, ConfigError
from core.config import head_choices
from core.errors import quote
from core.limits import MAX_D_MODEL, MAX_HEADS

BAD = [
    (dict(d_model=10, num_heads=4), "num_heads", "d_model 10 is not divisible by 4 heads"),
    (dict(d_model=0), "d_model", "d_model must be between 1 and 1024"),
    (dict(num_heads=0), "num_heads", "number of heads must be between 1"),
    (dict(text="   "), "text", "The text is empty"),
    (dict(text="word " * 65), "text", "The text has 65 tokens; the lab shows at most 64"),
    (dict(text="x" * 2001), "text", "at most 2,000"),
    (dict(source="random", seq_len=0), "seq_len", "between 1 and 64"),
    (dict(source="random", seq_len=65), "seq_len", "between 1 and 64"),
    (dict(mask="diagonal"), "mask", "Unknown mask 'diagonal'"),
    (dict(mask="window", window=0), "window", "between 1 and 64 tokens wide, got 0"),
    (dict(mask="window", window=65), "window", "between 1 and 64 tokens wide, got 65"),
    (dict(mask="padding", pad_length=9), "pad_length", "padding length 9 is longer than the sequence of 7"),
    (dict(mask="padding", pad_length=0), "pad_length", "At least one token must be real"),
    (dict(mask="custom", custom_mask=((True,),)), "custom_mask", "must be a 7×7 grid"),
    (dict(positional="alibi"), "positional", "Unknown positional 'alibi'"),
    (dict(positional="rotary", d_model=6, num_heads=2), "positional", "even size"),
    (dict(temperature=0.0), "temperature", "between 0.01 and 100"),
    (dict(temperature=1e-30), "temperature", "between 0.01 and 100"),
    (dict(temperature=float("nan")), "temperature", "between 0.01 and 100"),
    (dict(source="manual", d_model=2, num_heads=1, q=((1e30, 0.0),), k=((1.0, 0.0),), v=((1.0, 0.0),)),
     "q", r"Q row 1, column 1 is 1e\+30; the lab takes numbers between -10,000 and 10,000"),
    (dict(seed=-1), "seed", "The seed must be between"),
    (dict(source="manual", d_model=2, num_heads=1, q=((1.0, float("nan")),), k=((1.0, 0.0),), v=((1.0, 0.0),)),
     "q", "Q row 1, column 2 is not a finite number (nan)"),
    (dict(source="manual", d_model=2, num_heads=1, q=((1.0, 0.0),), k=((float("inf"), 0.0),), v=((1.0, 0.0),)),
     "k", "K row 1, column 1 is not a finite number (inf)"),
    (dict(source="manual", d_model=2, num_heads=1, q=((1.0, 0.0),), k=((1.0, 0.0), (0.0, 1.0)), v=((1.0, 0.0),)),
     "k", "K has 2 rows but Q has 1"),
    (dict(source="manual", d_model=3, num_heads=1, q=((1.0, 0.0),), k=((1.0, 0.0),), v=((1.0, 0.0),)),
     "q", "Q row 1 has 2 numbers but d_model is 3"),
    (dict(source="manual", d_model=2, num_heads=1, positional="sinusoidal", q=((1.0, 0.0),), k=((1.0, 0.0),),
          v=((1.0, 0.0),)), "positional", "no token embeddings"),
    (dict(device="tpu"), "device", "Unknown device 'tpu'"),
]


@pytest.mark.parametrize("changes, field, message", BAD, ids=[b[2][:30] for b in BAD])
def test_validation_messages(changes, field, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        AttentionConfig(**changes)
    assert err.value.field == field


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_cuda_without_gpu_is_explained():
    with pytest.raises(ConfigError, match="'cuda' was asked for, but this machine has none"):
        AttentionConfig(device="cuda")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_round_trips(name):
    cfg = PRESETS[name]
    flat = cfg.to_dict()
    assert all(isinstance(v, str) for v in flat.values())
    assert AttentionConfig.from_dict(flat) == cfg
    assert AttentionConfig.from_json(cfg.to_json()) == cfg
    assert AttentionConfig.from_json(cfg.to_json()).key() == cfg.key()


def test_custom_mask_and_odd_values_round_trip():
    cfg = AttentionConfig(source="random", seq_len=3, mask="custom", temperature=0.3,
                          custom_mask=((True, False, False), (False, False, False), (True, True, True)))
    flat = cfg.to_dict()
    assert flat["custom_mask"] == "100;000;111"
    assert AttentionConfig.from_dict(flat) == cfg


def test_key_is_stable_and_sensitive():
    a, b = AttentionConfig(), AttentionConfig()
    assert a.key() == b.key() and len(a.key()) == 16
    assert a.key() != a.replace(seed=1).key()
    # The key is a hash of the settings alone: the same on any machine and in any process.
    import hashlib
    assert a.key() == hashlib.sha256(json.dumps(a.to_dict(), sort_keys=True, ensure_ascii=False)
                                     .encode()).hexdigest()[:16]


@pytest.mark.parametrize("values, message", [
    ({"seed": "abc"}, "The seed must be a whole number written with the digits 0 to 9, got 'abc'"),
    ({"temperature": "hot"}, "The temperature must be a number"),
    ({"scale": "maybe"}, "must be true or false"),
    ({"q": "1,x;0,1"}, "Q must be rows of numbers"),
    ({"custom_mask": "12;01"}, "rows of 0 and 1"),
])
def test_from_dict_explains_bad_strings(values, message):
    with pytest.raises(ConfigError, match=message):
        AttentionConfig.from_dict(values)


def test_from_dict_takes_defaults_last_repeat_and_ignores_unknown():
    cfg = AttentionConfig.from_dict({"num_heads": ["2", "8"], "d_model": "32", "utm_source": "x"})
    assert cfg == AttentionConfig(num_heads=8, d_model=32)
    assert AttentionConfig.from_dict({}) == AttentionConfig()


def test_from_json_rejects_non_objects():
    with pytest.raises(ConfigError, match="not valid JSON"):
        AttentionConfig.from_json("{")
    with pytest.raises(ConfigError, match="JSON object"):
        AttentionConfig.from_json("[1, 2]")


def test_frozen():
    with pytest.raises(AttributeError):
        AttentionConfig().d_model = 8


@pytest.mark.parametrize("d_model", [1, 7, 12, 64, 96, 1000, MAX_D_MODEL])
def test_head_choices_are_the_head_counts_a_lesson_accepts(d_model):
    accepted = []
    for h in range(1, MAX_HEADS + 2):
        try:
            AttentionConfig(d_model=d_model, num_heads=h)
        except ConfigError:
            continue
        accepted.append(h)
    assert head_choices(d_model) == accepted


def test_head_choices_divide_d_model_up_to_max_heads():
    assert head_choices(12) == [1, 2, 3, 4, 6, 12] and head_choices(7) == [1, 7]
    assert head_choices(MAX_D_MODEL)[-1] == MAX_HEADS == 64 and 128 not in head_choices(128)


@pytest.mark.parametrize("value, quoted", [
    ("abc", "'abc'"),
    ("x" * 80, f"'{'x' * 80}'"),
    ("x" * 30_000, f"'{'x' * 80}…' (30,000 characters)"),
    ("a\u202eb\u2066c\u200fd\u061ce", "'a\\u202eb\\u2066c\\u200fd\\u061ce'"),  # bidi controls: written out
    ("tab\there\x00", "'tab\\u0009here\\u0000'"),  # control characters too
    ("\U000e0041", "'\\U000e0041'"),  # a tag character, past U+FFFF
    ("فارسی\u200cها 👩\u200d💻", "'فارسی\u200cها 👩\u200d💻'"),  # the joiners Persian and emoji need stay
    ("\u202e" * 20, "'" + "\\u202e" * 13 + "…' (20 characters)"),  # cut on what it shows, never inside an escape
])
def test_a_quoted_value_is_cut_and_its_hidden_characters_written_out(value, quoted):
    assert quote(value) == quoted


def test_a_link_value_is_quoted_cut_in_its_refusal():
    with pytest.raises(ConfigError) as err:
        AttentionConfig.from_dict({"mask": "\u202e" + "x" * 30_000})
    assert str(err.value) == f"Unknown mask '\\u202e{'x' * 74}…' (30,001 characters): choose one of none, causal, " \
                             "padding, window, custom."
