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
    assert "of its 72 heads put 0.7 or more of a word piece's weight on [CLS]" in PAGE.read_text()
