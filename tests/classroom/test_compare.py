"""The Compare page's numbers: B − A from the two traces, and the cell the summary names."""

import numpy as np
import pytest

from classroom.compare import CompareError, compare, describe_difference
from core import AttentionConfig, run_trace
from core.lesson import with_mask

A = AttentionConfig(text="the cat sat on the mat", d_model=16, num_heads=4, seed=3)


def test_diff_is_b_minus_a_and_the_summary_names_the_largest_cell():
    b_cfg = A.replace(temperature=0.1)
    c = compare(A, b_cfg)
    wa, wb = run_trace(A).weights, run_trace(b_cfg).weights
    np.testing.assert_allclose(c.diff, wb.astype(float) - wa.astype(float), atol=1e-12)
    h, q, k = np.unravel_index(np.argmax(np.abs(wb - wa)), wa.shape)
    assert c.cell == (h, q, k) and c.per_head
    assert (c.before, c.after) == (float(wa[h, q, k]), float(wb[h, q, k]))
    tokens = A.tokens
    assert c.summary == (f"From A to B (temperature 1 → 0.1), the weight that changes most is head {h + 1}, "
                         f"query “{q + 1} {tokens[q]}”, key “{k + 1} {tokens[k]}”: {wa[h, q, k]:.3f} → "
                         f"{wb[h, q, k]:.3f} (+{float(f'{wb[h, q, k]:.3f}') - float(f'{wa[h, q, k]:.3f}'):.3f}).")


@pytest.mark.parametrize("b_cfg", [A.replace(temperature=0.1), A.replace(scale=False), A.replace(seed=4),
                                   A.replace(mask="causal"), AttentionConfig(temperature=0.1)])
def test_the_printed_change_is_the_difference_of_the_printed_weights(b_cfg):
    import re

    a_cfg = A if b_cfg.text == A.text else AttentionConfig()
    summary = compare(a_cfg, b_cfg).summary
    before, after, sign, change = re.search(r"(\d\.\d+) → (\d\.\d+) \(([+−])(\d\.\d+)\)\.$", summary).groups()
    assert f"{abs(float(after) - float(before)):.3f}" == change and (sign == "+") == (float(after) > float(before))


def test_the_default_lessons_colder_compare_no_longer_prints_0_720():
    # On main this printed 0.277 → 0.996 (+0.720): the exact difference, not the one of the shown numbers.
    summary = compare(AttentionConfig(), AttentionConfig(temperature=0.1)).summary
    assert "0.277 → 0.996 (+0.719)" in summary


def test_different_head_counts_compare_the_head_means():
    c = compare(A, A.replace(num_heads=8))
    means = run_trace(A.replace(num_heads=8)).weights.mean(0) - run_trace(A).weights.mean(0)
    np.testing.assert_allclose(c.diff[0], means, atol=1e-6)
    assert not c.per_head and c.diff.shape == (1, 6, 6) and "averaged over heads (A has 4, B has 8)" in c.summary


def test_appended_padding_compares_the_shared_tokens():
    b_cfg = with_mask(A, "padding")
    c = compare(A, b_cfg)
    assert c.diff.shape == (4, 6, 6) and c.tokens == A.tokens
    assert "among the first 6 tokens" in c.summary
    # Padding keys get weight 0, so the real tokens' weights do not move (to float32 rounding).
    assert np.abs(c.diff).max() < 1e-6 and "no weight changes by 0.0005 or more" in c.summary


def test_identical_lessons_and_different_texts():
    assert compare(A, A).summary == "A and B are the same lesson: every weight is the same."
    with pytest.raises(CompareError, match="different tokens"):
        compare(A, A.replace(text="a dog ran"))


def test_describe_difference_lists_each_setting():
    b = A.replace(scale=False, mask="causal", seed=4)
    assert describe_difference(A, b) == "mask none → causal, ÷√d_k on → off, seed 3 → 4"
    assert describe_difference(A, A.replace(device="cpu")) == ""
