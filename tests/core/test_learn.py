"""The tiny Transformer that learns in class: its attention against PyTorch's, its tasks, the
scores that name its heads (on hand-built weights), and what a training run records. The default
film and its one-layer twin are trained once (tests/films.py); other runs are a few dozen steps."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from core.errors import ConfigError
from core.film import SEGMENT, SEQ_LEN, Film, LearnSettings, decode, encode
from core.learn import (
    Stopped,
    induction_score,
    previous_token_score,
    probe,
    run,
    train,
)
from core.learn_tasks import clean_repeats, eval_batch, induction_batch, probe_copies, text_batch
from core.learn_text import PROBE_PHRASE, TEXT
from core.tiny_model import TinyTransformer
from tests.films import trained


@pytest.fixture(scope="module")
def default_film():
    return trained(LearnSettings())


@pytest.fixture(scope="module")
def short_film():
    calls = []
    film = train(LearnSettings(steps=25, seed=3), progress=lambda *args: calls.append(args))
    return film, calls


# -- the model's attention is PyTorch's ---------------------------------------------------------
def _random_model(positions, causal, layers=2, d_model=32, heads=4):
    g = torch.Generator().manual_seed(5)
    model = TinyTransformer.seeded(g, vocab=32, max_len=SEQ_LEN, d_model=d_model, heads=heads, layers=layers,
                                   positions=positions, causal=causal)
    with torch.no_grad():  # the unembedding starts at zero: give it values so the logits say something
        model.unembed.weight.normal_(0, 0.3, generator=g)
        model.unembed.bias.normal_(0, 0.3, generator=g)
    return model


def _torch_reference(model, tokens):
    """The same network run by nn.MultiheadAttention with the model's weights copied in."""
    D, H = model.embed.embedding_dim, model.layers[0].num_heads
    x = model.embed(tokens) + (model.positions.weight[:tokens.shape[1]] if model.positions is not None else 0)
    T = tokens.shape[1]
    blocked = ~torch.ones(T, T, dtype=torch.bool).tril() if model.causal else None  # True = may NOT attend
    all_weights = []
    for ours in model.layers:
        mha = nn.MultiheadAttention(D, H, batch_first=True)
        with torch.no_grad():
            mha.in_proj_weight.copy_(ours.in_proj.weight)
            mha.in_proj_bias.copy_(ours.in_proj.bias)
            mha.out_proj.weight.copy_(ours.out_proj.weight)
            mha.out_proj.bias.copy_(ours.out_proj.bias)
        out, weights = mha(x, x, x, attn_mask=blocked, need_weights=True, average_attn_weights=False)
        x = x + out
        all_weights.append(weights)
    return model.unembed(x), torch.stack(all_weights, dim=1)


@pytest.mark.parametrize("positions,causal", [(True, True), (False, True), (True, False)])
def test_the_models_logits_and_weights_equal_nn_multiheadattention(positions, causal, tolerance):
    model = _random_model(positions, causal)
    tokens = induction_batch(torch.Generator().manual_seed(1), 3).tokens
    with torch.no_grad():
        logits, weights = model(tokens, need_weights=True)
        ref_logits, ref_weights = _torch_reference(model, tokens)
    torch.testing.assert_close(weights, ref_weights, **tolerance(torch.float32))
    torch.testing.assert_close(logits, ref_logits, **tolerance(torch.float32))
    if causal:  # no query looks at a later token
        assert torch.all(weights.triu(diagonal=1) == 0)


def test_the_fast_path_gives_the_logits_of_the_weights_path(tolerance):
    model = _random_model(True, True)
    tokens = induction_batch(torch.Generator().manual_seed(2), 4).tokens
    with torch.no_grad():
        shown, weights = model(tokens, need_weights=True)
        fast, none = model(tokens)
    assert none is None and weights.shape == (4, 2, 4, SEQ_LEN, SEQ_LEN)
    torch.testing.assert_close(fast, shown, **tolerance(torch.float32))


def test_a_fresh_model_guesses_uniformly_and_its_weights_come_from_the_seed_alone():
    shape = dict(vocab=32, max_len=SEQ_LEN, d_model=16, heads=2, layers=1)
    torch.manual_seed(0)
    a = TinyTransformer.seeded(torch.Generator().manual_seed(9), **shape)
    torch.manual_seed(1)  # another global RNG state changes nothing
    b = TinyTransformer.seeded(torch.Generator().manual_seed(9), **shape)
    for (name, p), q in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        assert torch.equal(p, q), name
    logits, _ = a(torch.zeros(1, 5, dtype=torch.long))
    assert torch.equal(logits, torch.zeros(1, 5, 32))  # loss ln 32 at step 0: chance


# -- the scores, on weights built by hand -------------------------------------------------------
def test_a_perfect_previous_token_head_scores_one_and_a_self_attending_head_zero():
    T = 5
    previous = torch.zeros(T, T)
    previous[0, 0] = 1.0
    previous[torch.arange(1, T), torch.arange(T - 1)] = 1.0
    assert previous_token_score(previous).item() == pytest.approx(1.0)
    assert previous_token_score(torch.eye(T)).item() == 0.0


def test_uniform_causal_rows_score_the_hand_computed_previous_token_value():
    uniform = torch.ones(4, 4).tril()
    uniform = uniform / uniform.sum(dim=-1, keepdim=True)
    # rows 1..3 put 1/2, 1/3, 1/4 on the token before: (1/2 + 1/3 + 1/4) / 3 = 13/36
    assert previous_token_score(uniform).item() == pytest.approx(13 / 36)
    stacked = torch.stack([uniform, torch.eye(4)])  # (H=2, T, T): one score per head
    assert previous_token_score(stacked).tolist() == pytest.approx([13 / 36, 0.0])


def _repeat(first, second, length):
    return torch.tensor([first]), torch.tensor([second]), torch.tensor([length])


def test_induction_scores_of_a_perfect_head_a_uniform_head_and_a_previous_token_head():
    T = 8  # segment at 1, 2, 3 and again at 5, 6, 7: queries 5 and 6 predict the copy
    perfect = torch.eye(T)
    perfect[5], perfect[6] = torch.eye(T)[2], torch.eye(T)[3]  # the token after the earlier occurrence
    uniform = torch.ones(T, T).tril()
    uniform = uniform / uniform.sum(dim=-1, keepdim=True)
    previous = torch.zeros(T, T)
    previous[torch.arange(1, T), torch.arange(T - 1)] = 1.0
    where = _repeat(1, 5, 3)
    assert induction_score(perfect[None], *where).item() == pytest.approx(1.0)
    assert induction_score(uniform[None], *where).item() == pytest.approx((1 / 6 + 1 / 7) / 2)
    assert induction_score(previous[None], *where).item() == 0.0


def test_the_induction_score_averages_over_sequences_with_their_own_segments():
    T = 8
    a = torch.eye(T)
    a[5], a[6] = torch.eye(T)[2], torch.eye(T)[3]  # perfect for a segment at 1 and 5, length 3
    b = torch.eye(T)
    b[4] = torch.eye(T)[1]  # perfect for a segment at 0 and 4, length 2 (one query: 4)
    first, second, length = torch.tensor([1, 0]), torch.tensor([5, 4]), torch.tensor([3, 2])
    assert induction_score(torch.stack([a, b]), first, second, length).item() == pytest.approx(1.0)
    assert induction_score(torch.stack([a, torch.eye(T)]), first, second, length).item() == pytest.approx(0.5)


# -- the tasks ----------------------------------------------------------------------------------
def test_induction_batches_repeat_a_segment_at_varying_offsets_and_score_only_the_copy():
    batch = induction_batch(torch.Generator().manual_seed(0), 64)
    offsets = set()
    for tokens, scored, a, s, n in zip(batch.tokens, batch.scored, batch.first.tolist(), batch.second.tolist(),
                                       batch.length.tolist(), strict=True):
        assert SEGMENT[0] <= n <= SEGMENT[1] and a + n <= s and s + n <= SEQ_LEN
        assert torch.equal(tokens[s:s + n], tokens[a:a + n])
        # predictions made at s .. s+n-2 are of the copy's 2nd .. last token: those, and only those, count
        assert scored.nonzero().flatten().tolist() == list(range(s, s + n - 1))
        offsets.add(s - a)
    assert len(offsets) >= 15
    again = induction_batch(torch.Generator().manual_seed(0), 64)
    assert torch.equal(again.tokens, batch.tokens)
    assert not torch.equal(induction_batch(torch.Generator().manual_seed(1), 64).tokens, batch.tokens)


def test_measured_sequences_have_one_earlier_occurrence_per_copied_token():
    batch = clean_repeats(torch.Generator().manual_seed(4), 16)
    for tokens, a, s, n in zip(batch.tokens, batch.first.tolist(), batch.second.tolist(), batch.length.tolist(),
                               strict=True):
        assert torch.equal(tokens[s:s + n], tokens[a:a + n])
        for i in range(n):
            assert (tokens == tokens[s + i]).nonzero().flatten().tolist() == [a + i, s + i]
    assert torch.equal(eval_batch().tokens, eval_batch().tokens)


def test_text_batches_are_windows_of_the_built_in_text_scored_everywhere():
    encode(TEXT)  # in the alphabet, or ConfigError
    assert len(TEXT) >= 3000 and TEXT == TEXT.lower()
    batch = text_batch(torch.Generator().manual_seed(0), 8)
    for tokens in batch.tokens:
        assert "".join(decode(tokens.tolist())).replace("␣", " ") in TEXT
    assert batch.scored.all() and batch.scored.shape == (8, SEQ_LEN - 1)


def test_the_probes_are_fixed_and_repeat_a_segment():
    text = probe("text")
    assert "".join(decode(text.tolist())).replace("␣", " ") == PROBE_PHRASE * 2
    ids = probe("induction")
    assert torch.equal(ids, probe("induction")) and ids.shape == (SEQ_LEN,)
    repeated = [t for t in ids.unique() if (ids == t).sum() == 2]
    assert len(repeated) >= SEGMENT[0]


@pytest.mark.parametrize("task", ["induction", "text"])
def test_probe_copies_says_where_the_probe_holds_its_stretch_twice(task):
    ids, (first, second, length) = probe(task).tolist(), probe_copies(task)
    assert SEGMENT[0] <= length and first + length <= second and second + length <= SEQ_LEN
    assert ids[second:second + length] == ids[first:first + length]
    if task == "induction":  # each letter of the stretch is there twice, in the two copies only
        assert all(ids.count(t) == 2 for t in ids[first:first + length])
    else:
        assert (first, second, length) == (0, len(PROBE_PHRASE), len(PROBE_PHRASE))


# -- a training run -------------------------------------------------------------------------------
def test_the_same_settings_record_the_same_film(short_film):
    film, _ = short_film
    again = train(film.settings)
    for name in Film._ARRAYS:
        assert np.array_equal(getattr(film, name), getattr(again, name)), name
    for name, values in film.params.items():
        assert np.array_equal(values, again.params[name]), name
    other = train(film.settings.replace(seed=4))
    assert not np.array_equal(other.loss, film.loss)


def test_a_film_records_every_step_and_snapshots_from_step_zero(short_film):
    film, calls = short_film
    assert film.loss.shape == film.accuracy.shape == film.baseline.shape == (25,)
    assert film.held_out.shape == (1,) and 0 <= film.final_accuracy <= 1
    assert 2.5 < film.counting_loss < math.log(32)  # the copy's letters were all seen: counting beats chance
    assert film.loss[0] == pytest.approx(math.log(32), abs=1e-5)  # the first step's guesses are uniform
    assert film.snapshots[0] == 0 and film.snapshots[-1] == 25
    assert film.weights.shape == (len(film.snapshots), 2, 4, SEQ_LEN, SEQ_LEN)
    np.testing.assert_allclose(film.weights.sum(axis=-1), 1.0, atol=1e-5)
    assert film.previous_token.shape == film.induction.shape == (len(film.snapshots), 2, 4)
    assert [step for step, *_ in calls] == [10, 20, 25] and all(total == 25 for _, total, *_ in calls)
    assert calls[-1][2:] == pytest.approx((float(film.loss[-1]), float(film.accuracy[-1])))


@pytest.mark.parametrize("changes", [{"task": "text"}, {"causal": False, "positions": False, "layers": 1}])
def test_other_settings_train_and_record_their_probe(changes):
    film = train(LearnSettings(steps=20, d_model=16, heads=2, **changes))
    assert np.array_equal(film.probe, probe(film.settings.task).numpy())
    assert film.weights.shape[1:] == (film.settings.layers, 2, SEQ_LEN, SEQ_LEN)
    assert np.isfinite(film.loss).all() and film.loss[-5:].mean() < film.loss[:5].mean()
    assert (film.counting_loss is None) == (film.settings.task == "text")  # the text's next letter may be new


def test_should_stop_stops_the_run():
    asked = []

    def should_stop():
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(Stopped):
        train(LearnSettings(steps=100), should_stop=should_stop)
    assert len(asked) == 4  # asked before each step: three ran


def test_a_film_survives_save_and_load_and_a_damaged_one_is_refused(short_film, tmp_path):
    film, _ = short_film
    loaded = Film.load(film.save(tmp_path / "film"))
    assert loaded.settings == film.settings and loaded.seconds == film.seconds
    for name in Film._ARRAYS:
        assert np.array_equal(getattr(loaded, name), getattr(film, name)), name
    assert np.array_equal(run(loaded, encode("abcabc"))[1], run(film, encode("abcabc"))[1])
    arrays = tmp_path / "film" / "film.safetensors"
    arrays.write_bytes(arrays.read_bytes()[:200])
    with pytest.raises(ValueError):
        Film.load(tmp_path / "film")


def test_run_refuses_sequences_it_cannot_read(short_film):
    film, _ = short_film
    with pytest.raises(ConfigError, match="1 to 48"):
        run(film, [0] * (SEQ_LEN + 1))
    with pytest.raises(ConfigError):
        run(film, [])
    weights, probs = run(film, encode("hello"))
    assert weights.shape == (2, 4, 5, 5) and probs.shape == (5, 32)
    np.testing.assert_allclose(probs.sum(axis=-1), 1.0, atol=1e-5)


# -- what the default film learns ------------------------------------------------------------------
@pytest.mark.slow
def test_the_default_film_forms_a_previous_token_head_in_layer_1_and_an_induction_head_in_layer_2(default_film):
    film = default_film
    previous, induction = film.previous_token_head(), film.induction_head()
    assert previous is not None and previous[0] == 1
    assert induction is not None and induction[0] == 2
    assert film.formed_at() is not None and film.formed_at() <= 150  # learn_bench.py times it: at most 5 s
    assert film.loss[-20:].mean() < film.loss[:20].mean() - 2  # the phase change: well below chance
    # the page's "predicts 0.9 of a second copy": on fresh sequences, and on each step's (unseen) batch
    assert film.final_accuracy >= 0.9 and film.accuracy[-20:].mean() >= 0.9
    # snapshots are dense where the loss fell: some 5 steps apart, besides the regular 25
    gaps = np.diff(film.snapshots)
    assert (gaps == 5).any() and set(range(0, film.settings.steps + 1, 25)) <= set(film.snapshots.tolist())
