"""A short guided tour of all-MiniLM-L6-v2's heads: what each one does, in sentences a lecturer
can sign, each backed by measured claims (a named measure and a bound) that
tests/core/test_guided_heads.py checks on sentences chosen to refute them (passives, object
referents, subjects that are not the first noun, questions, lists, long clauses), with weights
and values from transformers' BertModel. A claim that fails on some of them says "on most
sentences", and the page shows whether it holds on the student's sentence.

Layers and heads are counted from 1, as a person says them.
"""

from dataclasses import dataclass

import numpy as np

from .corpus import SIZE as CORPUS_SIZE
from .corpus import SOURCE as CORPUS
from .head_patterns import PATTERNS, head_patterns
from .value_norms import NORM_PATTERNS, norm_patterns

# The sentences every note's claims were tested on (tests/core/test_guided_heads.py runs them through
# transformers' BertModel), chosen to refute the notes, not to flatter them: passives, "it" that refers
# to the object, subjects that are not the first noun, questions, lists, long clauses, sentences of one
# or two words (a word and its mark, two-word questions, exclamations), sentences of 40 or more
# word pieces, and those a fresh reader chose to refute them (a cleft, a passive with "it", repeated
# words, a bare word). The pages say how many there are from this tuple.
TRIED = (
    # the example, and passives: the subject is not the doer, and not the first noun's role
    "The cat sat on the mat because it was tired.",
    "The ball was chased by the dog until it was exhausted.",
    "The window was broken by the storm, so it had to be replaced.",
    "The essay was praised by the professor because it was clear.",
    # "it" refers to the object, not the subject
    "The dog chased the ball until it rolled under the car.",
    "The girl dropped the glass and it shattered on the floor.",
    "The trophy didn't fit in the suitcase because it was too small.",
    # the subject is not the first noun
    "In the garden behind the house, the old statue cracked because it was weak.",
    "Yesterday at the market my neighbour bought a lamp, but it was broken.",
    # questions
    "Did the teacher read the essay before it was due?",
    "Where did you put the keys after you found them?",
    "Is it raining in London today?",
    "It is easy to see why the plan failed.",
    # lists
    "Apples, pears, plums and cherries grow in the orchard.",
    "She packed a tent, two lamps, a stove, some rope and a map.",
    "1, 2, 3, 4, 5, 6, 7, 8, 9, 10.",
    # long clauses
    "The report that the committee, which had met every week since March, finally published was longer "
    "than anyone expected.",
    "Although the experiment failed twice, the students who designed it kept refining the method until it worked.",
    "Why does the bridge that the engineers built last year creak when trucks cross it?",
    # short sentences
    "Researchers measured how quickly the ice melted.",
    "I love you.",
    "We won!",
    "Please close the door.",
    "Hi!",
    # one word and its mark, two-word questions, exclamations
    "It.",
    "Yes.",
    "Run.",
    "What is it?",
    "Why not?",
    "Who cares?",
    "Stop!",
    "Wow!",
    "Come here!",
    "Thanks!",
    # 40 word pieces or more
    "The committee that reviewed the proposal, which had been submitted by a consortium of universities and "
    "private laboratories in three countries, recommended after months of deliberation that the funding be "
    "extended for another five years.",
    "When the old lighthouse keeper finally retired after forty-two years of service, the villagers organised a "
    "celebration on the harbour, where children sang, fishermen told stories, and the mayor unveiled a bronze "
    "plaque.",
    "Because the river had flooded twice that spring, the farmers who lived along its banks moved their cattle "
    "to higher ground, stored their grain in the church, and waited, with growing impatience, for the engineers "
    "from the capital to arrive.",
    # a reader's, to refute the notes: a passive whose "it" is its subject, a cleft, repeated words, a
    # two-word question, one-word answers and questions, a bare word with no mark
    "The letter was written by Mary, and it was read by John.",
    "It was the dog that the boy saw.",
    "The the the the.",
    "Is it?",
    "Who?",
    "No.",
    "a",
)


@dataclass(frozen=True)
class Claim:
    measure: str  # a key of PATTERNS or NORM_PATTERNS
    bound: float
    at_most: bool = False  # the claim is "measure ≤ bound" (else "measure ≥ bound")
    on_most: bool = False  # it fails on some of TRIED, and the note says "on most sentences"
    # Where it fails (on_most only): every sentence of TRIED it fails on has between these many word
    # pieces (inclusive), and the note names that kind of sentence (`fails_on`)...
    fails_within: tuple[int, int] | None = None
    # ...but these sentences of TRIED, outside that kind, on which it fails too: the note quotes each
    # one's value (SAID), so a reader sees the kind is not the whole story
    also_fails: tuple[str, ...] = ()

    def holds(self, value: float) -> bool:
        return value <= self.bound if self.at_most else value >= self.bound

    def says(self) -> str:
        return f"{'at most' if self.at_most else 'at least'} {self.bound:g}"

    def fails_on(self) -> str:
        """The kind of sentence the claim fails on, in words ("" for a claim that holds on all)."""
        if self.fails_within is None:
            return ""
        low, high = self.fails_within
        if high == 1:
            return "sentences of a single word piece"
        if low <= 1:
            return f"sentences of {high} word pieces or fewer"
        return f"sentences of {low} word pieces or more"

    @property
    def needs_norms(self) -> bool:
        return self.measure in NORM_PATTERNS


@dataclass(frozen=True)
class HeadNote:
    layer: int  # 1..6
    head: int  # 1..12
    name: str
    explanation: str  # what the claims say, in words
    claims: tuple  # Claim, ...: the first is the note's main pattern
    caveat: str = ""  # what the pattern does not mean

    @property
    def pattern(self) -> str:
        return self.claims[0].measure

    @property
    def threshold(self) -> float:
        return self.claims[0].bound


EXAMPLE = "The cat sat on the mat because it was tired."
PASSIVE = "The ball was chased by the dog until it was exhausted."  # the subject is not the word the rows pick

# Each claim measured on prose nobody here chose: the SIZE sentences of Bierce's The Devil's Dictionary that
# core.corpus samples (1 to 62 word pieces, short to long), with core.trained_trace on the CPU. (layer, head,
# the claim's index in its note) -> (sentences it holds on, of the sample's sentences of LONG word pieces or
# more those it fails on, how many such sentences the sample has). tests/core/test_corpus_claims.py measures
# them again.
LONG = 40
ON_CORPUS = {(1, 3, 0): (399, 0, 44), (2, 9, 0): (400, 0, 44), (2, 9, 1): (400, 0, 44), (1, 4, 0): (400, 0, 44),
             (1, 4, 1): (393, 0, 44), (5, 6, 0): (332, 29, 44), (5, 6, 1): (400, 0, 44), (5, 6, 2): (380, 0, 44),
             (6, 12, 0): (353, 8, 44)}
# Layer 6, head 12 on the sample: (sentences with "it" whose "it" picks the word most rows pick, sentences with "it")
IT_ON_CORPUS = (52, 64)


def on_corpus(layer: int, head: int, k: int) -> str:
    """Where a note's k-th claim holds on the corpus, and where it fails, in words: "on all 400 sentences of
    The Devil's Dictionary", or "on 312 of 400 sentences of …, 78%, failing on 80 of the 101 of 40 word
    pieces or more and on 8 of the 299 shorter ones"."""
    held, long_failed, long = ON_CORPUS[layer, head, k]
    where = f"{CORPUS_SIZE} sentences of {CORPUS}"
    if held == CORPUS_SIZE:
        return f"on all {where}"
    short_failed, short = CORPUS_SIZE - held - long_failed, CORPUS_SIZE - long
    fails = [f"{long_failed} of the {long} of {LONG} word pieces or more" if long_failed else "",
             f"{short_failed} of the {short} shorter ones" if short_failed else ""]
    share = held / CORPUS_SIZE  # one decimal where none would round it to 100%
    percent = f"{share:.{0 if share < 0.995 else 1}%}"
    return f"on {held} of {where}, {percent}, failing on {' and on '.join(filter(None, fails))}"


def held_on_corpus(layer: int, head: int, k: int) -> str:
    """The short form, for a video's caption: "on 399 of 400 sentences of …, the other a shorter one", or "on 332 of
    400 sentences of …, failing on 29 of its 44 longest" (its sentences of LONG word pieces or more)."""
    held, long_failed, long = ON_CORPUS[layer, head, k]
    where = f"{CORPUS_SIZE} sentences of {CORPUS}"
    if held == CORPUS_SIZE:
        return f"on all {where}"
    failed = CORPUS_SIZE - held
    if long_failed:
        return f"on {held} of {where}, failing on {long_failed} of its {long} longest"
    return f"on {held} of {where}, {'the other a shorter one' if failed == 1 else f'the {failed} others shorter ones'}"


EVERY = f"on all {len(TRIED)} sentences chosen to refute it"  # how a claim that holds on all of TRIED says so
# Each note's numbers are its claims' bounds, formatted from them, or a value measured on a named
# sentence of TRIED (`SAID`), which tests/core/test_guided_heads.py measures again.
_PREVIOUS = (Claim("previous", 0.99),)
_NEXT = (Claim("next", 0.5), Claim("next", 0.95, at_most=True, on_most=True, fails_within=(1, 2)))
_SPREAD = (Claim("spread", 0.75, on_most=True, fails_within=(1, 1)),
           Claim("spread", 0.85, on_most=True, fails_within=(1, 5)))
_CLS = (Claim("cls", 0.7), Claim("cls_shorter", 20.0),
        Claim("cls_share", 0.3, at_most=True, on_most=True, fails_within=(1, 4),
              also_fails=("It was the dog that the boy saw.", "The the the the.")))
_ONE_WORD = (Claim("one_word", 0.5, on_most=True, fails_within=(19, 46), also_fails=("Is it?",)),)
# (layer, head, measure, sentence) -> the value a note says it has there, to two decimals
SAID = {(2, 9, "next", "Who?"): 0.97, (1, 4, "spread", "a"): 0.65, (1, 4, "spread", "I love you."): 0.79,
        (5, 6, "cls_share", "It."): 0.75, (5, 6, "cls_share", "What is it?"): 0.35,
        (5, 6, "cls_share", "We won!"): 0.18, (5, 6, "cls_share", "It was the dog that the boy saw."): 0.32,
        (5, 6, "cls_share", "The the the the."): 0.49, (6, 12, "one_word", "Is it?"): 0.33,
        (6, 12, "one_word", "Although the experiment failed twice, the students who designed it kept refining "
                            "the method until it worked."): 0.47}


# (sentences of TRIED with "it" whose "it" picks the word most rows pick, sentences of TRIED with "it"):
# measured again by tests/core/test_guided_heads.py
IT_PICKS = (16, 19)


def _said(layer, head, measure, sentence) -> str:
    return f"{SAID[layer, head, measure, sentence]:.2f} on “{sentence}”"


_BACK = HeadNote(1, 3, "Previous word piece",
                 f"On average, {_PREVIOUS[0].says()} of each word piece's weight goes to the piece just before it, "
                 f"{EVERY} and {on_corpus(1, 3, 0)}: the model has learned to look one position back.",
                 _PREVIOUS)
HEADS_WORTH_A_LOOK = (
    _BACK,
    HeadNote(2, 9, "Next word piece",
             f"On average, at least half of each word piece's weight goes to the piece just after it, {EVERY} and "
             f"{on_corpus(2, 9, 0)}, and {_NEXT[1].says()} on most sentences ({on_corpus(2, 9, 1)}; layer "
             f"{_BACK.layer}, head {_BACK.head} puts "
             f"{_PREVIOUS[0].says()} one piece back): a weaker pattern in the other direction. Some "
             f"{_NEXT[1].fails_on()} reach higher ({_said(2, 9, 'next', 'Who?')}).",
             _NEXT),
    HeadNote(1, 4, "The whole sentence",
             "Weight is spread thinly over the whole sentence: a row's entropy is on average "
             f"{_SPREAD[0].says()} of ln T, the entropy of a row that weighs every piece equally, on most "
             f"sentences ({on_corpus(1, 4, 0)}; not on some {_SPREAD[0].fails_on()}: "
             f"{_said(1, 4, 'spread', 'a')}), and {_SPREAD[1].says()} on most sentences ({on_corpus(1, 4, 1)}); "
             f"of the test sentences, some {_SPREAD[1].fails_on()} fall below "
             f"({_said(1, 4, 'spread', 'I love you.')}).",
             _SPREAD),
    HeadNote(5, 6, "Parked on [CLS]",
             f"On average, {_CLS[0].says()} of each word piece's weight goes to [CLS], {EVERY}, but not on all "
             f"prose: {on_corpus(5, 6, 0)}. Yet [CLS]'s value, through W_V and this head's part of W_O, is "
             f"{_CLS[1].says():s} times shorter than a word piece's on average ({EVERY} and {on_corpus(5, 6, 1)}), "
             f"so on most sentences [CLS]'s share of the head's norm-weighted contributions, ‖α·f(x)‖, is "
             f"{_CLS[2].says()} ({on_corpus(5, 6, 2)}): the weight is parked on [CLS], and what the head adds comes "
             f"mostly from the other pieces. Not on most {_CLS[2].fails_on()}: there [CLS]'s share can be larger "
             f"({_said(5, 6, 'cls_share', 'What is it?')}; {_said(5, 6, 'cls_share', 'It.')}, where [CLS] "
             f"supplies most of what the head passes on), though not on all ({_said(5, 6, 'cls_share', 'We won!')}); "
             f"and sometimes on longer ones ({_said(5, 6, 'cls_share', 'It was the dog that the boy saw.')}; "
             f"{_said(5, 6, 'cls_share', 'The the the the.')}).",
             _CLS,
             caveat="Kobayashi et al. (2020, “Attention is Not Only a Weight”) measured the same for [CLS], "
                    "[SEP] and punctuation in BERT: large weights, short transformed values."),
    HeadNote(6, 12, "One word for every row",
             "On most sentences, at least half of the word pieces put their largest weight (of the word pieces) on "
             f"the same one ({on_corpus(6, 12, 0)}), often a noun: every row picks “cat” in “{EXAMPLE}”, “it” "
             f"too. Where a sentence has “it”, “it” is usually among them. Of the test sentences, it fails on some "
             f"long {_ONE_WORD[0].fails_on()}, where fewer than half agree "
             f"({_said(6, 12, 'one_word', TRIED[17])}), and on some very short ones "
             f"({_said(6, 12, 'one_word', 'Is it?')}).",
             _ONE_WORD,
             caveat=f"It is not a coreference head: “it” usually picks the word the other rows pick (on "
                    f"{IT_ON_CORPUS[0]} of the {IT_ON_CORPUS[1]} sentences of {CORPUS} with “it”, and on "
                    f"{IT_PICKS[0]} of the {IT_PICKS[1]} test sentences with “it”), whatever “it” refers to: "
                    "“dog” in “The dog chased the ball until it rolled under the car.” (“it” is the ball), "
                    "“trophy” in “The trophy didn't fit in the suitcase because it was too small.” (“it” is the "
                    "suitcase). That word is often the subject, but not always: in “" + PASSIVE + "” most "
                    "rows pick “dog”, not the subject “ball”. And the weight on that word can be small: under 0.1 "
                    "on average in some sentences."),
)


def claim_values(note: HeadNote, weights: np.ndarray, norms: np.ndarray | None = None) -> list[float]:
    """Each of the note's claims measured on one sentence: weights (L, H, T, T) and, for claims
    about value norms, ‖f(x_j)‖ as (L, H, T) (`core.value_norms`)."""
    at = note.layer - 1, note.head - 1
    patterns = head_patterns(weights)
    if any(c.needs_norms for c in note.claims):
        if norms is None:
            raise ValueError(f"layer {note.layer}, head {note.head}'s note needs the value norms")
        patterns |= norm_patterns(weights, norms)
    unknown = [c.measure for c in note.claims if c.measure not in patterns]
    if unknown:
        raise ValueError(f"unknown measure(s) {unknown}: not in {sorted({*PATTERNS, *NORM_PATTERNS})}")
    return [float(patterns[c.measure][at]) for c in note.claims]


def note_value(note: HeadNote, weights: np.ndarray) -> float:
    """The note's main pattern (its first claim, always one of `PATTERNS`) on one sentence's weights (L, H, T, T)."""
    return float(head_patterns(weights)[note.pattern][note.layer - 1, note.head - 1])


# -- the notes' claims measured on a sentence of the corpus (tests/core/test_corpus_claims.py) -----------
@dataclass(frozen=True)
class Reading:
    """One sentence of core.corpus's sample as the guided notes' claims measure it (core.trained_trace, on the CPU)."""
    sentence: str
    pieces: int  # word pieces, [CLS] and [SEP] left out
    values: dict  # (layer, head, claim's index in its note) -> the claim's measure on this sentence
    picks: dict  # (layer, head) -> (the word piece most rows pick, the one "it" picks, or None without "it")


def read(notes, sentence: str) -> Reading:
    """Every claim of `notes` (this module's HeadNotes) measured on one sentence of core.corpus's sample."""
    from .head_patterns import one_word, top_word
    from .trained import trained_trace
    from .value_norms import value_norms

    t = trained_trace(sentence, device="cpu")
    norms = value_norms(t.layers)
    values, picks = {}, {}
    for n in notes:
        for k, v in enumerate(claim_values(n, t.weights, norms)):
            values[n.layer, n.head, k] = v
        head = t.weights[n.layer - 1, n.head - 1]
        picks[n.layer, n.head] = (one_word(head, t.tokens)[0],
                                  top_word(head, t.tokens, "it")[0] if "it" in t.tokens else None)
    return Reading(sentence, len(t.tokens) - 2, values, picks)
