"""core's run of all-MiniLM-L6-v2 against transformers' BertModel read from the same files."""

import numpy as np
import pytest
import torch

from core import padding_mask, trained_trace
from core.bert import load_minilm
from core.pretrained import encode, word_pieces
from tests.core.conftest import needs_model

pytestmark = needs_model
TOL = {"atol": 1e-5, "rtol": 1e-5}  # float32
SENTENCES = ["The cat sat on the mat because it was tired.", "Hi!",
             "In 1905, Einstein published four papers that changed physics forever."]
TRICKY = ["I can't believe it's already 3:45!", "Don't panic: naïve café owners in Zürich open at 7.",
          "Zyxwvut quibbleflap snorgle.", "Prices rose 12.5% (from $3,400 to $3,825) in 2024...",
          "Tokyo 東京 and Athens Αθήνα", "emoji 🙂 and dashes — like – these", "  spaces\tand\nnewlines  "]


def _reference(reference, ids, lengths):
    ids = torch.tensor(ids)  # (B, T)
    attention_mask = (torch.arange(ids.shape[1]) < torch.tensor(lengths)[:, None]).long()  # (B, T)
    with torch.no_grad():
        return reference["model"](input_ids=ids, attention_mask=attention_mask, output_attentions=True,
                                  output_hidden_states=True)


@pytest.mark.parametrize("text", SENTENCES)
def test_trained_trace_matches_bert_model(text, reference):
    ours = trained_trace(text, device="cpu")
    ref = _reference(reference, [ours.ids.tolist()], [len(ours.tokens)])
    np.testing.assert_allclose(ours.weights, torch.cat(ref.attentions).numpy(), **TOL)  # (L, H, T, T)
    np.testing.assert_allclose(ours.hidden_states, torch.cat(ref.hidden_states).numpy(), **TOL)  # (L + 1, T, D)
    np.testing.assert_allclose(ours.last_hidden_state, ref.last_hidden_state[0].numpy(), **TOL)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")
def test_trained_trace_on_the_gpu_matches_the_reference(reference):
    text = SENTENCES[0]
    ours = trained_trace(text, device="cuda")
    ref = _reference(reference, [ours.ids.tolist()], [len(ours.tokens)])  # on the CPU
    np.testing.assert_allclose(ours.weights, torch.cat(ref.attentions).numpy(), **TOL)
    np.testing.assert_allclose(ours.last_hidden_state, ref.last_hidden_state[0].numpy(), **TOL)
    assert ours.layer(1).config.device == "cuda"


def test_each_layer_trace_matches_the_reference_sublayers(reference):
    """Per layer: the trace's concat is BertSelfAttention's output, its output is W_O's."""
    text = SENTENCES[0]
    ours = trained_trace(text, device="cpu")
    seen = {}
    hooks = []
    for i, layer in enumerate(reference["model"].encoder.layer):
        hooks.append(layer.attention.self.register_forward_hook(
            lambda m, a, out, i=i: seen.__setitem__(("concat", i), out[0][0])))
        hooks.append(layer.attention.output.dense.register_forward_hook(
            lambda m, a, out, i=i: seen.__setitem__(("output", i), out[0])))
    try:
        _reference(reference, [ours.ids.tolist()], [len(ours.tokens)])
    finally:
        for h in hooks:
            h.remove()
    for i, layer in enumerate(ours.layers):
        assert layer.num_heads == 12 and layer.d_k == 32 and layer.scale == pytest.approx(32 ** -0.5)
        np.testing.assert_allclose(layer.concat, seen["concat", i].numpy(), **TOL)
        np.testing.assert_allclose(layer.output, seen["output", i].numpy(), **TOL)
        np.testing.assert_array_equal(layer.weights, ours.weights[i])
        np.testing.assert_array_equal(layer.x, ours.hidden_states[i])


def test_padded_batch_matches_and_padding_gets_no_weight(reference):
    texts = ["The quick brown fox jumps over the lazy dog.", "Hi!", "She sells sea shells."]
    tokens, ids, lengths = encode(texts)
    T = len(tokens[0])
    assert lengths == [12, 4, 7] and all(len(t) == T for t in tokens) and tokens[1][4:] == ["[PAD]"] * 8
    with torch.no_grad():
        hidden, weights = load_minilm("cpu")(torch.tensor(ids), padding_mask(lengths, T))
    ref = _reference(reference, ids, lengths)
    for ours, theirs in zip(weights, ref.attentions, strict=True):
        torch.testing.assert_close(ours, theirs, **TOL)  # (B, H, T, T), padding queries included
        for b, n in enumerate(lengths):
            assert torch.all(ours[b, :, :, n:] == 0)  # exactly 0 on padding keys
    for b, n in enumerate(lengths):  # hidden states of the real word pieces
        torch.testing.assert_close(hidden[-1][b, :n], ref.last_hidden_state[b, :n], **TOL)
    single = trained_trace(texts[1], device="cpu")  # padding changes nothing for the real pieces
    np.testing.assert_allclose(weights[-1][1, :, :4, :4].numpy(), single.weights[-1], **TOL)


@pytest.mark.parametrize("text", SENTENCES + TRICKY)
def test_word_pieces_match_the_reference_tokenizers(text, reference):
    expected = reference["tokenizer"].convert_ids_to_tokens(reference["tokenizer"](text)["input_ids"])
    assert word_pieces(text) == expected
    assert word_pieces(text) == ["[CLS]", *reference["vocab_tokenizer"].tokenize(text), "[SEP]"]


def test_word_pieces_are_not_padded_or_cut_to_128():
    assert word_pieces("Hi!") == ["[CLS]", "hi", "!", "[SEP]"]
    assert len(word_pieces("word " * 200)) == 202
