"""The lesson cache is bounded by memory, not by entries, and safe to share between threads."""

import threading

import numpy as np
import pytest

from core import MAX_TOKENS, AttentionConfig
from core.config import MAX_D_MODEL
from dashboard import data
from dashboard.data import MemoryLRU, nbytes

LARGEST = AttentionConfig(source="random", seq_len=MAX_TOKENS, d_model=MAX_D_MODEL, num_heads=16)


@pytest.mark.slow
def test_two_hundred_of_the_largest_lessons_stay_within_the_budget():
    data.memo().clear()
    sizes = []
    for seed in range(200):
        trace = data.trace(LARGEST.replace(seed=seed))
        sizes.append(nbytes(trace))
        assert data.memo().bytes <= data.BUDGET_BYTES
    kept = len(data.memo())
    print(f"\n200 largest lessons of {sizes[0] / 2**20:.1f} MB each: {kept} kept, "
          f"{data.memo().bytes / 2**20:.0f} MB of a {data.BUDGET_BYTES / 2**20:.0f} MB budget")
    assert kept == data.BUDGET_BYTES // sizes[0]  # as many as fit, not 200
    assert data.trace(LARGEST.replace(seed=199)) is data.trace(LARGEST.replace(seed=199)), "the newest is kept"
    data.memo().clear()


def test_least_recently_used_leaves_first_and_arrays_are_read_only():
    memo = MemoryLRU(budget=3 * 800)  # three arrays of 100 float64
    for name in "abc":
        memo.get_or_make(name, lambda: np.zeros(100))
    memo.get_or_make("a", lambda: 1 / 0)  # a hit: "a" is now the most recent
    memo.get_or_make("d", lambda: np.zeros(100))
    assert len(memo) == 3 and memo.bytes == 2400
    assert memo.get_or_make("a", lambda: None) is not None  # kept
    assert memo.get_or_make("b", lambda: "made again") == "made again"  # "b" had left
    assert not memo.get_or_make("c", lambda: None).flags.writeable


def test_many_threads_share_one_cache_without_losing_count():
    memo = MemoryLRU(budget=50 * 800)
    errors = []

    def work(offset):
        try:
            for i in range(400):
                memo.get_or_make((offset + i) % 120, lambda: np.zeros(100))
        except Exception as err:  # noqa: BLE001 - any failure in a thread is the test's failure
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k * 7,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert memo.bytes == len(memo) * 800 <= 50 * 800
