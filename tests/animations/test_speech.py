"""The narrator's words: the normaliser, on examples and on every caption of every scene for the
default lesson and 20 random ones; and every number spoken comes from the lesson's numbers."""

import importlib
import math
import random
import re

import pytest

from animations.catalog import SCENES, scenes_for
from animations.mobjects import MAX_SHOWN
from animations.scenes.masking import SDPA_ZERO_SINCE
from animations.scenes.scaling import SEEDS
from animations.scenes.trained import CITED
from animations.speech import SPEAKABLE, spoken, token_words
from core import (
    HEADS_WORTH_A_LOOK,
    MINILM,
    PRESETS,
    AttentionConfig,
    ConfigError,
    head_patterns,
    norm_patterns,
    run_trace,
    value_norms,
)
from core.analysis import saturation, score_row
from core.trained import trained_trace

EXAMPLES = {
    "Q·Kᵀ / √d_k": "Q times K transposed over the square root of d k",
    "divided by √d_k = √4, so it is multiplied by 0.50.": "divided by the square root of d k equals the square root "
                                                           "of four, so it is multiplied by zero point five.",
    "‘cat’ gives 17% of its attention to ‘on’.": "the word cat gives 17 percent of its attention to the word on.",
    "the score is -1.05 and −0.79": "the score is minus one point zero five and minus zero point seven nine",
    "M_ij = −∞ where j may not be seen, and 0 elsewhere": "M ij equals minus infinity where j may not be seen, "
                                                          "and zero elsewhere",
    "since e^−∞ = 0": "since e to the minus infinity equals zero",
    "a row of 1 × 7 times V, 7 × 4": "a row of one by seven times V, seven by four",
    "W_O, a d_model × d_model matrix": "W O, a d model by d model matrix",
    "about T × w instead of T²": "about T times w instead of T squared",
    "its Jacobian, diag(p) − p·pᵀ, goes": "its Jacobian, the diagonal matrix with p on its diagonal, minus the outer "
                                          "product of p with itself, goes",
    "diag(x)": "the diagonal matrix with x on its diagonal",
    "a tolerance of 1e-5": "a tolerance of ten to the minus 5",
    "key j within i − 2 … i ⇒ 0/0": "key j within i minus two and so on i, so zero over zero",
    "F.scaled_dot_product_attention gives 0; nn.MultiheadAttention gives NaN":
        "PyTorch's attention function gives zero; PyTorch's multi-head attention module gives NaN",
    "the row ‘.’ and ‘’’ and ‘Zoë’ and ‘😀’ and ‘中’": "the row of the full stop and the apostrophe and the word Zoe "
                                                     "and the grinning face and a symbol",
    "The lab’s weights — random": "The lab's weights, random",
    "all-MiniLM-L6-v2 adds [CLS] and [SEP]": "Mini L M adds the C L S token and the S E P token",
}


@pytest.mark.parametrize("caption", EXAMPLES)
def test_normaliser_examples(caption):
    assert spoken(caption) == EXAMPLES[caption]


# One test per rule of the lecture-hall narrator: a listener hears no quotes and cannot read digits back.
@pytest.mark.parametrize("caption, said", [
    ("the query of ‘on’ meeting the key of ‘.’", "the query of the word on meeting the key of the full stop"),
    ("Row ‘on’ before the mask", "Row of the word on before the mask"),
    ("the piece ‘animal’ and the word ‘cat’", "the piece animal and the word cat"),
    ("‘7’ and ‘##ing’ and ‘don’t’", "the token seven and the word piece ing and the word don't"),
    # a letter of the induction film is a character, not a word (not "at the second the word q")
    ("At the second character ‘q’, it looks", "At the second character q, it looks"),
])
def test_a_quoted_token_is_said_as_a_token(caption, said):
    assert spoken(caption) == said


@pytest.mark.parametrize("caption, said", [
    ("0.9996 of its weight", "nearly one of its weight"),
    # a bound is said whole: never "over nearly one"
    ("over 0.9999 of it, under 0.0001 elsewhere", "more than zero point nine nine nine nine of it, less than zero "
     "point zero zero zero one elsewhere"),
    ("1.0004 in all", "just over one in all"),
    ("a weight of 0.123", "a weight of about zero point one two"),
    ("0.50 and 0.90", "zero point five and zero point nine"),
    ("16.7% of it", "about 17 percent of it"),
    ("-0.796", "minus about zero point eight"),
])
def test_numbers_are_rounded_for_the_ear(caption, said):
    assert spoken(caption) == said


@pytest.mark.parametrize("caption", [
    "PyTorch's F.scaled_dot_product_attention gives 0", "`torch.nn.functional.scaled_dot_product_attention`",
    "nn.MultiheadAttention gives NaN", "SDPA returns no weights", "all-MiniLM-L6-v2 reads it",
])
def test_no_code_identifier_is_spoken(caption):
    said = spoken(caption)
    assert not re.search(r"\b(dot|underscore|F|n n|S D P A|v two)\b", said), said
    assert said.count("PyTorch") <= 1


def test_the_jacobian_is_said_one_way_only():
    """diag(p) − ppᵀ and diag(p − ppᵀ) are different matrices: the spoken forms differ too."""
    assert spoken("diag(p) − p·pᵀ") != spoken("diag(p − p·pᵀ)")
    assert spoken("diag(p) − p·pᵀ").startswith("the diagonal matrix with p on its diagonal, minus")


def test_tokens_are_said_by_name_and_never_run_long():
    assert token_words("x_y") == "x underscore y"
    assert token_words("<b>") == "less than sign b greater than sign"
    assert len(token_words("a" * 500)) <= 60


WORDS = ["The", "cat", "didn't", "Zoë", "naïve", "<b>bold</b>", "😀", "中文", "x_y", "3.14", "-2", "e^x", "√2", "50%",
         "→", "—", "«quoted»", "PAD", "1e-5", "Q·K", "d_k", "&", "#", "@home", "C++", "ℵ"]


def random_lesson(seed: int) -> AttentionConfig:
    """A small random lesson (any source, mask, positions, scale and temperature)."""
    rng = random.Random(seed)
    while True:
        d_model = rng.choice([4, 8, 12, 16])
        source = rng.choice(["text", "text", "random", "manual"])
        T = rng.randint(2, 4)
        fields = dict(source=source, d_model=d_model, num_heads=rng.choice([h for h in (1, 2, 4) if d_model % h == 0]),
                      mask=rng.choice(["none", "causal", "padding", "window", "custom"]), pad_length=rng.randint(1, T),
                      window=rng.randint(1, 4), positional=rng.choice(["none", "sinusoidal", "learned", "rotary"]),
                      scale=rng.random() < 0.8, temperature=rng.choice([0.5, 1.0, 1.0, 2.0]), seed=rng.randint(0, 999),
                      text=" ".join(rng.choice(WORDS) for _ in range(T)), seq_len=T)
        if source == "manual":
            fields.update({m: tuple(tuple(round(rng.uniform(-3, 3), 1) for _ in range(d_model)) for _ in range(T))
                           for m in "qkv"}, positional=rng.choice(["none", "rotary"]))
        try:
            cfg = AttentionConfig(**fields)
            T = cfg.num_tokens
            if cfg.mask == "custom":
                cfg = cfg.replace(custom_mask=tuple(tuple(rng.random() < 0.6 for _ in range(T)) for _ in range(T)))
            if cfg.mask == "padding" and cfg.pad_length > T:
                cfg = cfg.replace(pad_length=T)
            return cfg
        except ConfigError:
            continue


LESSONS = [PRESETS["default"]] + [random_lesson(s) for s in range(20)]
# The trained scene's sentences: one over MAX_SHOWN pieces, a two-piece one, one with ## pieces and marks.
TRAINED_TEXTS = ["The cat sat on the mat because it was tired.", "Hi!",
                 "Photosynthesis converts sunlight, water and carbon dioxide into sugar."]


def trained_lessons() -> list[AttentionConfig]:
    """The trained lessons, or none where the model is not installed (test_trained_scene.py says so)."""
    try:
        return [AttentionConfig.trained(text) for text in TRAINED_TEXTS]
    except ConfigError:
        return []


@pytest.fixture(scope="module")
def counted(manim_media):
    """(lesson, scene name) -> the scene after its counting pass (captions, no frames), for every scene
    that can draw the lesson (catalog.scenes_for); the scene's `cfg` is its lesson."""
    from manim import tempconfig

    done = {}
    with tempconfig({"dry_run": True, "disable_caching": True, "media_dir": str(manim_media), "verbosity": "WARNING"}):
        for n, cfg in enumerate(LESSONS + trained_lessons()):
            for name in scenes_for(cfg):
                module, cls = SCENES[name]
                done[n, name] = getattr(importlib.import_module(module), cls).counted(cfg)
    return done


def test_every_caption_is_spoken_in_characters_piper_reads(counted):
    """SPEAKABLE: ASCII letters and digits, space and , . ' ? ! : ; - ( ). Nothing else reaches Piper: a
    symbol it does not know it would skip or read by an odd name; a decimal point between digits is read
    by us, digit by digit, not left to Piper."""
    for (n, name), scene in counted.items():
        assert len(scene.captions) >= 4
        for caption in scene.captions:
            said = spoken(caption)
            assert said and SPEAKABLE.fullmatch(said), (n, name, caption, said)
            assert not re.search(r"\d[.,]\d", said), (n, name, said)
            assert "  " not in said and "_" not in said
            assert not re.search(r"\b(F dot|n n dot|S D P A)\b", said), (n, name, said)  # no code names


NUMBER = re.compile(r"(?<![\w.])[−-]?\d+(?:\.\d+)?%?")


def _numbers(caption: str) -> list[str]:
    """The numbers a caption says, leaving out quoted tokens (a token may be '3.14')."""
    return NUMBER.findall(re.sub(r"‘\S+?’(?=[\s,.;:!?)]|$)", " ", caption))


def _candidates(scene, cfg) -> tuple[set, set, set]:
    """(two-decimal values, whole percentages, whole numbers) that the scene's sources hold."""
    decimals, percents = set(), set()
    traces = [run_trace(c) for c in scene.variants.values()]
    for tr in traces:
        for field in ("x", "q", "k", "v", "scores", "scaled", "weights", "heads", "concat", "output"):
            values = getattr(tr, field).ravel()
            decimals |= {f"{v:.2f}" for v in values if math.isfinite(v)}
        percents |= {f"{round(100 * w)}%" for w in tr.weights.ravel()}
        decimals |= {f"{tr.scale:.2f}", f"{cfg.temperature:g}"}
    wholes = {"0", "1", str(MAX_SHOWN), str(len(SEEDS)), "16", f"{cfg.temperature:g}", str(cfg.seed)}
    decimals.add(SDPA_ZERO_SINCE)  # a PyTorch version, said by the masking scene
    for tr in traces:
        T, D, h = len(tr.tokens), tr.x.shape[1], tr.num_heads
        wholes |= {str(v) for v in (T, D, tr.d_k, T - 1, *range(1, h + 1))}  # head 1 … head h
    for c in scene.variants.values():
        wholes |= {str(c.pad_length), str(c.num_tokens - c.pad_length), str(min(c.window, c.num_tokens)),
                   str(min(c.window, c.num_tokens) - 1)}
    if cfg.source == "trained":  # the trained scene: core's head patterns and its guided tour's notes
        _trained_candidates(scene, decimals, wholes)
    if hasattr(scene, "d_ks"):  # the scaling scene: core.analysis's numbers, and each √d_k
        wholes |= {str(d) for d in scene.d_ks} | {f"{math.sqrt(d):g}" for d in scene.d_ks}
        decimals |= {f"{math.sqrt(d):.2f}" for d in scene.d_ks}
        for d_k in scene.d_ks:
            for scaled in (False, True):
                percents |= {f"{round(100 * w)}%" for w in score_row(d_k, scene.T, cfg.seed, scaled)}
        for scaled in (False, True):
            decimals |= {f"{v:.2f}" for v in saturation(scene.d_ks, T=16, seeds=SEEDS, scaled=scaled)["max_weight"]}
    return decimals, percents, wholes


def _trained_candidates(scene, decimals: set, wholes: set):
    """A pattern value or a weight near 0 or 1 may be said with up to 4 decimals (0.9996, not 1.00)."""
    weights = trained_trace(scene.cfg.text).weights  # (L, H, T, T): every layer's, the scene's two heads among them
    values = [*weights.ravel(), *(v for p in head_patterns(weights).values() for v in p.ravel())]
    decimals |= {f"{v:.{d}f}" for v in values for d in (2, 3, 4)} | {"0.9999", "0.0001"}  # the bounds past 4
    decimals |= {f"{n.threshold:g}" for n in HEADS_WORTH_A_LOOK}
    passed_on = norm_patterns(weights, value_norms(trained_trace(scene.cfg.text).layers))  # what a head passes on
    decimals |= {f"{v:.{d}f}" for v in passed_on["cls_share"].ravel() for d in (2, 3, 4)}
    wholes |= {f"{v:.0f}" for v in passed_on["cls_shorter"].ravel()}
    wholes |= set(NUMBER.findall(CITED))  # the years of the papers it cites
    wholes |= {str(v) for v in (MINILM.layers, MINILM.heads, MINILM.d_model)}
    wholes |= {w for n in HEADS_WORTH_A_LOOK for w in NUMBER.findall(n.caveat + " " + n.explanation)}


def test_every_number_spoken_is_the_lessons(counted):
    checked = 0
    for (n, name), scene in counted.items():
        decimals, percents, wholes = _candidates(scene, scene.cfg)
        for caption in scene.captions:
            for number in _numbers(caption):
                number = number.replace("−", "-")
                pool = percents if number.endswith("%") else decimals if "." in number else wholes
                assert number in pool, (n, name, number, caption)
                checked += "." in number or number.endswith("%")
    assert checked > 100  # decimals and percentages, not only small whole numbers


def test_the_softmax_sentence_names_a_real_weight(counted):
    """'‘A’ gives P% of its attention to ‘B’': the weight of query A on key B in the scene's head is P%."""
    pattern = re.compile(r"‘(\S+?)’ gives (\d+)% of its attention to ‘(\S+?)’")
    seen = 0
    for (n, name), scene in counted.items():
        if name != "scores":
            continue
        tr = scene.trace
        for a, p, b in pattern.findall(" ".join(scene.captions)):
            matches = [(i, j) for i, ti in enumerate(tr.tokens) for j, tj in enumerate(tr.tokens)
                       if ti == a and tj == b and round(100 * tr.weights[scene.head, i, j]) == int(p)]
            assert matches, (n, a, p, b)
            seen += 1
    assert seen == len(LESSONS)


def test_a_soft_row_is_called_soft_with_its_range(counted):
    """The scores video names the query's largest weight; on a row of random weights whose largest is
    under one half it also says the row is soft and gives its range (lowest to highest weight seen)."""
    seen_soft = 0
    for (n, name), scene in counted.items():
        if name != "scores":
            continue
        tr, i, h = scene.trace, scene.query, scene.head
        row = tr.weights[h, i][tr.mask[i]]
        said = next(c for c in scene.captions if c.startswith("Softmax turns"))
        soft = f"its weights run from {round(100 * row.min())}% to {round(100 * row.max())}%"
        assert (soft in said) == (row.max() < 0.5), (n, said)
        seen_soft += row.max() < 0.5
    assert seen_soft  # the default lesson's row is one
