"""The guided notes' claims measured on prose nobody here chose (core.corpus: Bierce's The Devil's Dictionary,
from Debian's dict-devil): the corpus is read as its module says, and each note's "on 312 of 400 sentences …"
is measured again, sentence by sentence, with the lab's own trained_trace, whose values on a few of those
sentences are transformers' BertModel's.

Without dict-devil these tests fail, naming the package (CI installs it: scripts/system-packages.sh)."""

import gzip

import numpy as np
import pytest

from core import HEADS_WORTH_A_LOOK, corpus, guided_heads
from core.guided_heads import IT_ON_CORPUS, LONG, ON_CORPUS, claim_values, on_corpus
from tests.core.conftest import needs_model, reference_run

ENTRY = ('ABATIS, n.  Rubbish in front of a fort, to prevent the rubbish outside\nfrom molesting the rubbish inside.  '
         'He said "No."  _Dr._ Jones\nagreed.\nThen he left!\n\n    Poor Isabella\'s Dead, whose abdication\n'
         '    Set all tongues wagging.\n')


def test_an_entrys_sentences_are_its_first_paragraphs_without_its_headword():
    assert corpus.sentences_of(ENTRY) == [
        "Rubbish in front of a fort, to prevent the rubbish outside from molesting the rubbish inside.",
        'He said "No."', "Dr. Jones agreed.", "Then he left!"]  # the verse after the blank line is left out


def test_a_machine_without_the_package_is_told_which_to_install(tmp_path):
    with pytest.raises(corpus.CorpusMissing, match="install the Debian package dict-devil"):
        corpus.entries(tmp_path / "devil.dict.dz")


def test_the_index_finds_each_entry_in_the_data(tmp_path):
    """dictd's index: headword, start and length in base-64 digits (A = 0, B = 1 … / = 63)."""
    text = "00-database-short\nThe book\nABATIS, n.  Rubbish.\n"
    (tmp_path / "book.dict.dz").write_bytes(gzip.compress(text.encode()))
    start = text.index("ABATIS")
    digits = corpus._DIGITS
    (tmp_path / "book.index").write_text(f"00databaseshort\tA\tZ\nabatis\t{digits[start]}\t{digits[20]}\n")
    assert corpus.entries(tmp_path / "book.dict.dz") == ["ABATIS, n.  Rubbish."]  # 20 characters from its start


def test_the_sample_is_the_installed_books_short_to_long():
    """Fails without dict-devil, with the message naming it (the corpus is part of the lab's checks)."""
    every = corpus.sentences()
    sample = corpus.sample()
    assert len(every) >= 1500 and len(sample) == len(set(sample)) == corpus.SIZE == 400
    lengths = [n for _, n in sample]
    assert lengths == sorted(lengths) and lengths[0] == min(n for _, n in every) <= 3
    assert lengths[-1] == max(n for _, n in every) == corpus.MAX_PIECES == 62
    assert sum(n >= LONG for n in lengths) >= 20 and sum(n <= 5 for n in lengths) >= 10


@pytest.fixture(scope="module")
def readings():
    return [guided_heads.read(HEADS_WORTH_A_LOOK, s) for s, _ in corpus.sample()]


@needs_model
@pytest.mark.slow
def test_each_notes_share_on_the_corpus_is_measured(readings):
    """Every claim's (held, failing of LONG pieces or more, such sentences) on the sample, and the note's words."""
    measured = {}
    for n in HEADS_WORTH_A_LOOK:
        for k, claim in enumerate(n.claims):
            held = [claim.holds(r.values[n.layer, n.head, k]) for r in readings]
            long = [r.pieces >= LONG for r in readings]
            measured[n.layer, n.head, k] = (sum(held), sum(lg and not h for h, lg in zip(held, long, strict=True)),
                                            sum(long))
            assert on_corpus(n.layer, n.head, k) in n.explanation, (n.layer, n.head, k)
    assert measured == ON_CORPUS
    # layer 6, head 12: does "it" pick the word most rows pick, on the sentences with "it"
    agree = [word == it for r in readings for word, it in [r.picks[6, 12]] if it is not None]
    assert (sum(agree), len(agree)) == IT_ON_CORPUS
    note = next(n for n in HEADS_WORTH_A_LOOK if (n.layer, n.head) == (6, 12))
    assert f"{IT_ON_CORPUS[0]} of the {IT_ON_CORPUS[1]} sentences of {corpus.SOURCE} with “it”" in note.caveat


@needs_model
@pytest.mark.slow
def test_the_corpus_values_are_bert_models(readings, reference):
    """core's run (trained_trace) against transformers' BertModel on sentences of the sample, short to long."""
    picked = readings[::50] + readings[-1:]
    ref = reference_run(reference, [r.sentence for r in picked])
    for r in picked:
        tokens, w, norms = ref[r.sentence]
        assert len(tokens) - 2 == r.pieces
        for n in HEADS_WORTH_A_LOOK:
            mine = [r.values[n.layer, n.head, k] for k in range(len(n.claims))]
            np.testing.assert_allclose(mine, claim_values(n, w, norms), rtol=1e-4, atol=1e-4)
