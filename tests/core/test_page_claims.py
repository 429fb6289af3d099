"""Figures the Multi-head page states about the trained model, recomputed with transformers' BertModel:
"15 of its 72 heads put 0.7 or more of a word piece's weight on [CLS] on average" on the default sentence,
the range on the other test sentences, and how much of what those heads pass on comes from [CLS]."""

import ast
import re
from pathlib import Path

import torch

from tests.core.conftest import needs_model, reference_run

pytestmark = needs_model
PAGE = Path(__file__).parents[2] / "dashboard" / "app_pages" / "multi_head.py"
DEFAULT = "The cat sat on the mat."


def _stated(name: str):
    return re.search(rf"^{name} = (.+?)(?:  #.*)?$", PAGE.read_text(), re.M).group(1)


def test_the_multi_head_pages_cls_count_is_transformers_count(reference):
    stated = int(_stated("CLS_HEADS"))
    encoded = reference["tokenizer"](DEFAULT, return_tensors="pt")
    with torch.no_grad():
        out = reference["model"](**encoded, output_attentions=True)
    weights = torch.stack(out.attentions)[:, 0]  # (L, H, T, T)
    on_cls = weights[:, :, 1:-1, 0].mean(-1)  # each word piece's row ([CLS] and [SEP] rows left out), column [CLS]
    assert on_cls.numel() == 72 and int((on_cls >= 0.7).sum()) == stated == 15
    assert "of MiniLM's 72 heads put 0.7 or more of a word piece's weight on [CLS]" in PAGE.read_text()


def test_the_range_on_other_sentences_is_transformers_range(reference):
    """"1 to 16 on the lab's other test sentences of six words or more, more on short ones: 47 on “Hi!”"."""
    from core.guided_heads import TRIED

    low, high = map(int, re.fullmatch(r"\((\d+), (\d+)\)", _stated("CLS_RANGE")).groups())
    short = int(_stated("CLS_SHORT"))
    counts = {s: int((torch.as_tensor(w)[:, :, 1:-1, 0].mean(-1) >= 0.7).sum())
              for s, (_, w, _) in reference_run(reference, TRIED).items()}
    long = [n for s, n in counts.items() if len(s.split()) >= 6]
    assert len(long) >= 15 and (min(long), max(long)) == (low, high) == (1, 16)
    assert counts["Hi!"] == short == 47 > high  # "more on short ones": "Hi!" is one of them (not the most)


def test_what_the_cls_heads_pass_on_from_cls_is_transformers(reference):
    """"12 of those 15 heads take at most 0.3 of what they pass on from [CLS] … layer 3, head 10 puts
    0.89 of its weight on [CLS], and 0.61 of what that head passes on comes from [CLS]": [CLS]'s share of each row's
    ‖α_ij f(x_j)‖ (Kobayashi et al. 2020), f from BertModel's own value and output modules."""
    tokens, w, norms = reference_run(reference, [DEFAULT])[DEFAULT]
    w, norms = torch.as_tensor(w), torch.as_tensor(norms)  # (L, H, T, T), (L, H, T)
    by_norm = w * norms[:, :, None, :]  # ‖α_ij f(x_j)‖ = α_ij ‖f(x_j)‖
    share = (by_norm[..., 0] / by_norm.sum(-1))[:, :, 1:-1].mean(-1)  # (L, H) the word pieces' rows, from [CLS]
    on_cls = w[:, :, 1:-1, 0].mean(-1)
    parked = on_cls >= 0.7
    little = float(_stated("LITTLE"))
    assert int((parked & (share <= little)).sum()) == int(_stated("CLS_LITTLE")) == 12
    layer, head, weight, passed = ast.literal_eval(_stated("CLS_MOST"))
    most = torch.where(parked, share, torch.zeros_like(share)).argmax()
    assert divmod(int(most), 12) == (layer - 1, head - 1) == (2, 9)
    assert (f"{float(on_cls[layer - 1, head - 1]):.2f}", f"{float(share[layer - 1, head - 1]):.2f}") == \
        (f"{weight:.2f}", f"{passed:.2f}") == ("0.89", "0.61")


def test_the_vocabulary_the_word_pieces_note_names_is_the_tokenizers(reference):
    """“the model's vocabulary of 30,522 pieces” (the Trained heads page's word-piece notes)."""
    from dashboard.app_pages.word_pieces import NOTES

    assert f"{len(reference['tokenizer']):,}" == "30,522"
    assert "vocabulary of 30,522 pieces" in NOTES["##"]
