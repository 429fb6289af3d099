"""Every number a lecturer reads in the lab's texts (pages, guided notes, video captions and narration,
the lecture deck's notes) is either formatted from a value (an f-string's field: not seen here) or
listed below with what backs it: the test that computes it, or why it is no measurement (a paper's
figure, a formula's constant, a name).

A number is listed under the word before it ("least 0.99"), so a number changed in a text is a new,
unlisted one and fails here until someone lists it with the test that computes it; a listed test must
exist and must contain that number, and a listing whose number has left its text fails too. The
numbers 0 and 1 of formulas and definitions (weights between 0 and 1, a row that sums to 1) need no
listing, unless they name a layer, a head, a step or a page.
"""

import ast
import re

import pytest

from tests.text_numbers import ROOT, numbers_in, text_files

CITED = "a figure or year of a paper or release the sentence names"
FORMULA = "a constant of a formula or a definition (4·d_model, 2·T·d, N(0, 1), √2), not a measurement"
NAME = "a name or a label, not a measurement (step 2, page 1, a video quality's name)"
NAMED_BY = re.compile(r"(?i)\b(layer|layers|head|heads|step|steps|page|pages)$")

ARTICLE = "tests/core/test_article.py"
LISTED = {
    "dashboard/app_pages/article_listings.py": {"variance 8": FORMULA, "`torch.zeros 4": FORMULA, "4, 4": FORMULA},
    "dashboard/app_pages/block.py": {"= 4": FORMULA, "them: 8": FORMULA, "of 12": FORMULA, "+ 2": FORMULA,
                                     "hold 4": FORMULA, "scales 2": FORMULA},
    "dashboard/app_pages/watch_learn.py": {"the 26": FORMULA, "layer 1": NAME,
                                           "layer 2": NAME, "at, 0": FORMULA},
    "dashboard/app_pages/learn_questions.py": {"layer 1": NAME, "layer 2": NAME},
    "dashboard/app_pages/masking.py": {"1": NAME, "2": NAME, "3": NAME, "PyTorch 2.5": CITED},
    "dashboard/app_pages/multi_head.py": {
        "pruned 38": CITED, "of 48": CITED, "of 0.15": CITED,
        "MiniLM's 72": "tests/core/test_page_claims.py::test_the_multi_head_pages_cls_count_is_transformers_count",
        "put 0.7": "tests/core/test_page_claims.py::test_the_multi_head_pages_cls_count_is_transformers_count",
        "W_O: 4": FORMULA, "together: 2": FORMULA, "holds 2": FORMULA},
    "dashboard/app_pages/positional.py": {"exactly 0.5": FORMULA, "√ 2": FORMULA, "/ 10000": FORMULA},
    "dashboard/app_pages/steps.py": {"1": NAME, "2": NAME, "3": NAME, "4": NAME, "step 2": NAME},
    "dashboard/app_pages/trained_heads.py": {
        "of 40": "tests/core/test_guided_heads.py::"
                 "test_the_sentences_include_one_word_two_word_questions_exclamations_and_40_word_pieces"},
    "dashboard/app_pages/trained_table.py": {
        "layer 1": "tests/dashboard/test_trained_claims.py::"
                   "test_the_page_says_what_the_model_is_and_what_weights_do_not_show",
        "head 3": "tests/dashboard/test_trained_claims.py::"
                  "test_the_page_says_what_the_model_is_and_what_weights_do_not_show"},
    "dashboard/app_pages/trained_model.py": {"a 12": CITED},
    "dashboard/app_pages/ui.py": {"*Module 10": NAME},
    "dashboard/app_pages/why_scale.py": {"1": NAME, "2": NAME, "head 1": NAME},
    "dashboard/app_pages/word_pieces.py": {
        "of 30,522": "tests/core/test_page_claims.py::"
                     "test_the_vocabulary_the_word_pieces_note_names_is_the_tokenizers"},
    "dashboard/app_pages/worked_example.py": {
        "= 2": FORMULA, "diag 10": FORMULA, "10, 20": FORMULA, "÷√ 2": FORMULA, "0, 20": FORMULA,
        **{k: ARTICLE for k in ("** 0.670", "/ 0.330", "is 0.670", "0.670· 10", "+ 0.330", "0.330· 0", "** 6.70",
                                "6.70, 6.60", "[[ 0.670", "[[0.670, 0.330", "[ 0.330", "[0.330, 0.670")}},
    "animations/scenes/multihead.py": {"head 1": NAME, "head 2": NAME, "head<sub> 1": NAME, "heads 1": NAME},
    "animations/scenes/trained.py": {"a 12": CITED},
    "animations/scenes/induction_parts.py": {
        "over 99%": "tests/animations/test_induction_scene.py::test_the_prediction_shown_is_the_trained_models"},
    "animations/catalog.py": {"480p, 15": NAME, "1080p, 30": NAME, "720p, 30": NAME, "1080p, 60": NAME},
    "core/guided_heads.py": {"under 0.1": "tests/core/test_guided_heads.py::"
                                          "test_layer_6_head_12_picks_one_word_not_the_subject"},
    "classroom/decks/default.toml": {
        "diag 10": FORMULA, "10, 20": FORMULA, "itself 0.670": ARTICLE, "other 0.330": ARTICLE,
        "Step 2": NAME, "Step 3": NAME, "Step 0": NAME, "page 1": NAME, "head 3": NAME, "layer 1": NAME,
        "Layer 4": NAME, "layer 4": NAME, "head 2": NAME, "head 1": NAME},
}
YEAR = re.compile(r"(?:al\.|Wallace|Pinter|in|The|and) (19|20)\d\d")  # "Kobayashi et al. 2020": a citation's year


def _unlisted(path, listed) -> list[str]:
    out = []
    for key in dict.fromkeys(numbers_in(path)):
        word, _, number = key.rpartition(" ") if " " in key else ("", "", key)
        if key in listed or YEAR.fullmatch(key):
            continue
        if number in ("0", "1") and not NAMED_BY.search(word):
            continue  # a formula's 0 or 1
        out.append(key)
    return out


@pytest.mark.parametrize("path", text_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_number_in_the_text_is_formatted_or_listed(path):
    listed = LISTED.get(str(path.relative_to(ROOT)), {})
    assert not _unlisted(path, listed), "list each with the test that computes it (or say why it is no measurement)"
    gone = [key for key in listed if key not in numbers_in(path)]
    assert not gone, "listed, but no longer in the text: take the listing out"


def _test_source(where: str) -> str:
    file, _, name = where.partition("::")
    source = (ROOT / file).read_text(encoding="utf-8")
    if not name:
        return source
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return ast.get_source_segment(source, node)
    raise AssertionError(f"{where}: no such test")


@pytest.mark.parametrize("path, key, where", [(p, k, w) for p, keys in LISTED.items() for k, w in keys.items()
                                              if w not in (CITED, FORMULA, NAME)])
def test_each_listed_number_is_in_the_test_that_computes_it(path, key, where):
    number = key.rpartition(" ")[2] if " " in key else key
    assert (ROOT / path).exists()
    assert number.removesuffix("%") in _test_source(where), f"{where} does not compute {number} ({path}: {key})"


def test_the_scan_finds_what_a_lecturer_reads():
    """The scan is not empty-handed: it sees a note's bound only as formatted (no literal), and the
    literal numbers of a page and of the deck."""
    by_file = {str(p.relative_to(ROOT)): numbers_in(p) for p in text_files()}
    assert "put 0.7" in by_file["dashboard/app_pages/multi_head.py"]
    assert "itself 0.670" in by_file["classroom/decks/default.toml"]
    assert not any(k.endswith(" 0.99") for k in by_file["core/guided_heads.py"])  # formatted from the claim
    assert len(text_files()) >= 25
