"""The lesson cache is bounded by memory, not by entries, and safe to share between threads."""

import threading

import numpy as np
import pytest

from core import MAX_TOKENS, AttentionConfig
from core.limits import MAX_D_MODEL
from dashboard import data, process
from dashboard.data import MemoryLRU, nbytes

LARGEST = AttentionConfig(source="random", seq_len=MAX_TOKENS, d_model=MAX_D_MODEL, num_heads=16)


@pytest.mark.slow
def test_four_times_as_many_of_the_largest_lessons_as_fit_stay_within_the_budget():
    """Each lesson made is one more than the cache held: past the first few, every one must push the
    oldest out (a cache bounded by entries would keep them all)."""
    data.memo.clear()
    fit = data.BUDGET_BYTES // nbytes(data.trace(LARGEST.replace(seed=0)))
    made = 4 * fit + 1
    sizes = []
    for seed in range(made):
        trace = data.trace(LARGEST.replace(seed=seed))
        sizes.append(nbytes(trace))
        assert data.memo.bytes <= data.BUDGET_BYTES
    kept = len(data.memo)
    print(f"\n{made} largest lessons of {sizes[0] / 2**20:.1f} MB each: {kept} kept, "
          f"{data.memo.bytes / 2**20:.0f} MB of a {data.BUDGET_BYTES / 2**20:.0f} MB budget")
    assert len(set(sizes)) == 1 and made > kept == fit  # as many as fit, not all that were made
    newest = LARGEST.replace(seed=made - 1)
    assert data.trace(newest) is data.trace(newest), "the newest is kept"
    data.memo.clear()


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


def _rss_mb() -> float:
    for line in open("/proc/self/status").read().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(process._TRIM is None, reason="needs glibc's malloc_trim")
def test_memory_a_run_freed_goes_back_to_the_system():
    """A large lesson's arrays are freed once its page is sent, but glibc keeps freed pages in its heap
    while anything above them lives: the process stayed at its largest size (issue 28). The end of a run
    hands them back."""
    arrays = [np.ones(100_000 // 8) for _ in range(2_000)]  # 200 MB in blocks below malloc's mmap threshold
    pinned = np.ones(100_000 // 8)  # allocated last: it keeps the heap's top where it is
    del arrays
    held = _rss_mb()
    process._trimmed[0] = 0.0  # as if the last trim was long ago
    process.give_back_memory()
    given_back = held - _rss_mb()
    assert given_back > 150, f"only {given_back:.0f} MB of 200 MB freed went back to the system"
    assert pinned.sum() == 100_000 // 8


def test_at_most_two_values_are_made_at_once_and_one_made_from_another_takes_no_turn():
    """Six clients asking for six of the largest lessons at once made six at once (~100 MB each while
    computed): a server past 1.8 GB (issue 28)."""
    memo, lock, now, most = MemoryLRU(budget=10**9, computing=2), threading.Lock(), [0], [0]

    def make(key):
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        inner = memo.get_or_make(("inner", key), lambda: np.zeros(1))  # nested: must not wait for a turn
        threading.Event().wait(0.05)
        with lock:
            now[0] -= 1
        return inner

    threads = [threading.Thread(target=memo.get_or_make, args=(k, lambda k=k: make(k))) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "a nested value waited for a turn its caller held"
    assert most[0] <= 2 and len(memo) == 16
