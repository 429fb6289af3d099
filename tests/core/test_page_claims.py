"""A figure the Multi-head page states about the trained model, recomputed with transformers' BertModel:
"15 of its 72 heads put 0.7 or more of a word piece's weight on [CLS] on average" on the default sentence."""

import re
from pathlib import Path

import torch

from tests.core.conftest import needs_model

pytestmark = needs_model
PAGE = Path(__file__).parents[2] / "dashboard" / "app_pages" / "multi_head.py"


def test_the_multi_head_pages_cls_count_is_transformers_count(reference):
    stated = int(re.search(r"^CLS_HEADS = (\d+)", PAGE.read_text(), re.M).group(1))
    encoded = reference["tokenizer"]("The cat sat on the mat.", return_tensors="pt")
    with torch.no_grad():
        out = reference["model"](**encoded, output_attentions=True)
    weights = torch.stack(out.attentions)[:, 0]  # (L, H, T, T)
    on_cls = weights[:, :, 1:-1, 0].mean(-1)  # each word piece's row ([CLS] and [SEP] rows left out), column [CLS]
    assert on_cls.numel() == 72 and int((on_cls >= 0.7).sum()) == stated == 15
    assert "of MiniLM's 72 heads put 0.7 or more of a word piece's weight on [CLS]" in PAGE.read_text()


def test_the_range_on_other_sentences_is_transformers_range(reference):
    """"5 to 16 on the lab's other test sentences of six words or more, more on short ones: 47 on “Hi!”"."""
    from tests.core.conftest import reference_run
    from tests.core.test_guided_heads import SENTENCES

    text = PAGE.read_text()
    low, high = map(int, re.search(r"^CLS_RANGE = \((\d+), (\d+)\)", text, re.M).groups())
    short = int(re.search(r"^CLS_SHORT = (\d+)", text, re.M).group(1))
    counts = {s: int((torch.as_tensor(w)[:, :, 1:-1, 0].mean(-1) >= 0.7).sum())
              for s, (_, w, _) in reference_run(reference, SENTENCES).items()}
    long = [n for s, n in counts.items() if len(s.split()) >= 6]
    assert len(long) >= 15 and (min(long), max(long)) == (low, high) == (5, 16)
    assert max(n for s, n in counts.items() if len(s.split()) < 6) == counts["Hi!"] == short == 47
