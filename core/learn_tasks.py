"""The tiny model's tasks, its probe and the sequences its heads are measured on.

- "induction": SEQ_LEN random tokens in which a segment of 6–19 tokens is copied to a later,
  random place. The offset between the copies varies from sequence to sequence: with one
  fixed offset a model learns "look k tokens back", a positional shortcut, instead of
  "find the earlier copy". Only the copy can be predicted, so only it is scored.
- "text": the next character of the built-in English text (`learn_text.TEXT`), everywhere.

Every draw comes from a `torch.Generator` passed in: no global RNG, the same batches for the
same seed.
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from .film import ALPHABET, SEGMENT, SEQ_LEN, encode
from .learn_text import PROBE_PHRASE, TEXT

VOCAB = len(ALPHABET)
PROBE_SEED = 26  # fixes the induction probe: the same letters for every run and every class
EVAL_SEED = 2022  # fixes the sequences the scores are measured on, whatever the run's seed
EVAL_SEQUENCES = 16
HELD_OUT_SEED = 4040  # fixes the fresh sequences a trained model's accuracy is measured on at the end
HELD_OUT_SEQUENCES = 512


@dataclass(frozen=True)
class Batch:
    """B sequences of T tokens; `scored[b, t]` says whether the prediction made at position t
    (of token t + 1) counts in the loss. For repeats: the segment sits at first[b]..first[b] +
    length[b] - 1 and again from second[b]; None for the text task."""

    tokens: torch.Tensor  # (B, T) token ids
    scored: torch.Tensor  # (B, T - 1) bool
    first: torch.Tensor | None = None  # (B,) start of the segment's first copy
    second: torch.Tensor | None = None  # (B,) start of its second copy
    length: torch.Tensor | None = None  # (B,) segment length


def _places(g: torch.Generator, B: int):
    """A segment length, and two non-overlapping places for it, per sequence, all at random."""
    low, high = SEGMENT
    length = torch.randint(low, high + 1, (B,), generator=g)  # (B,)
    # first copy anywhere that leaves room for the second; then the second anywhere after it
    first = (torch.rand(B, generator=g) * (SEQ_LEN - 2 * length + 1)).long()  # (B,)
    second = first + length + (torch.rand(B, generator=g) * (SEQ_LEN - 2 * length - first + 1)).long()  # (B,)
    return first, second, length


def _copy_segment(tokens, first, second, length) -> Batch:
    """Write tokens[first : first + length] over tokens[second : second + length], per row."""
    pos = torch.arange(SEQ_LEN).unsqueeze(0)  # (1, T)
    in_copy = (pos >= second[:, None]) & (pos < (second + length)[:, None])  # (B, T)
    source = torch.where(in_copy, pos - second[:, None] + first[:, None], pos)  # (B, T)
    tokens = tokens.gather(1, source)  # (B, T)
    # Predictable: the copy's 2nd token onwards, i.e. the predictions made at second .. second + length - 2.
    at = pos[:, :-1]  # (1, T - 1)
    scored = (at >= second[:, None]) & (at < (second + length - 1)[:, None])  # (B, T - 1)
    return Batch(tokens, scored, first, second, length)


def induction_batch(g: torch.Generator, B: int) -> Batch:
    """B sequences of uniformly random tokens, each with a segment repeated at a random offset."""
    tokens = torch.randint(0, VOCAB, (B, SEQ_LEN), generator=g)  # (B, T)
    return _copy_segment(tokens, *_places(g, B))


def clean_repeats(g: torch.Generator, B: int) -> Batch:
    """Like `induction_batch`, but the segment's tokens are all different and occur nowhere
    else: each token of the second copy has exactly one earlier occurrence, so "the token after
    the earlier occurrence" is one position, and a score can ask for it without ambiguity."""
    first, second, length = _places(g, B)
    tokens = torch.empty(B, SEQ_LEN, dtype=torch.long)  # (B, T)
    for b, n in enumerate(length.tolist()):
        perm = torch.randperm(VOCAB, generator=g)  # (V,)
        segment, others = perm[:n], perm[n:]
        tokens[b] = others[torch.randint(0, VOCAB - n, (SEQ_LEN,), generator=g)]  # (T,) none from the segment
        tokens[b, first[b]:first[b] + n] = segment
    return _copy_segment(tokens, first, second, length)


_TEXT_IDS = torch.tensor(encode(TEXT))  # (N,) the whole text as token ids, made once


def text_batch(g: torch.Generator, B: int) -> Batch:
    """B windows of SEQ_LEN characters at random places in the text; every prediction counts."""
    starts = torch.randint(0, len(_TEXT_IDS) - SEQ_LEN + 1, (B, 1), generator=g)  # (B, 1)
    tokens = _TEXT_IDS[starts + torch.arange(SEQ_LEN)]  # (B, T)
    return Batch(tokens, torch.ones(B, SEQ_LEN - 1, dtype=torch.bool))


def task_batch(task: str, g: torch.Generator, B: int) -> Batch:
    return induction_batch(g, B) if task == "induction" else text_batch(g, B)


def eval_batch() -> Batch:
    """The sequences every film's scores are measured on, whatever the task or the seed."""
    return clean_repeats(torch.Generator().manual_seed(EVAL_SEED), EVAL_SEQUENCES)


def probe(task: str) -> torch.Tensor:
    """The fixed sequence (T,) whose attention the film shows: for "induction", random letters
    with a repeated segment; for "text", an English phrase written twice."""
    if task == "text":
        return torch.tensor(encode(PROBE_PHRASE * 2))
    return clean_repeats(torch.Generator().manual_seed(PROBE_SEED), 1).tokens[0]


def probe_copies(task: str) -> tuple[int, int, int]:
    """Where `probe(task)` holds its stretch twice, from 0: (first copy's start, second copy's start,
    length)."""
    if task == "text":
        return 0, len(PROBE_PHRASE), len(PROBE_PHRASE)
    repeat = clean_repeats(torch.Generator().manual_seed(PROBE_SEED), 1)
    return int(repeat.first[0]), int(repeat.second[0]), int(repeat.length[0])


def held_out(task: str) -> Batch:
    """Fresh sequences of `task` that no run trains on (their own seed): a trained model's accuracy
    is measured on them."""
    return task_batch(task, torch.Generator().manual_seed(HELD_OUT_SEED), HELD_OUT_SEQUENCES)


def counts_loss(batch: Batch) -> torch.Tensor:
    """The loss of counting, on the positions `batch` scores: at position t, predict each token with
    the share of tokens 0..t that are it,

        p_t(v) = #{s <= t : tokens[s] = v} / (t + 1)

    A model that knows which tokens the sequence holds so far, but not where, can do this. Finite
    only where every scored token was seen before (the induction task's copies: always)."""
    counts = F.one_hot(batch.tokens[:, :-1], VOCAB).cumsum(dim=1)  # (B, T - 1, V) counts of tokens 0..t
    seen = torch.arange(1, batch.tokens.shape[1], dtype=torch.float32)  # (T - 1,) tokens 0..t
    targets = batch.tokens[:, 1:]  # (B, T - 1)
    hits = counts.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (B, T - 1) times the next token was seen
    return -(hits / seen).log()[batch.scored].mean()
