"""Bad and hostile deck files: each gets one DeckError naming the screen and the field, in words, and
nothing else is ever raised."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from classroom.deck_file import MAX_DECK_BYTES
from classroom.decks import MAX_SCREENS, DeckError, load_deck, parse_deck
from core.film import LearnSettings

HEAD = 'title = "A deck"\n'
STEPS = LearnSettings().steps  # a deck film's steps when it names none
PAGE = 'kind = "page"\ntitle = "Masking"\nminutes = 2\npage = "masking"\n'


def deck(*screens: str) -> str:
    return HEAD + "".join(f"[[screen]]\n{s}\n" for s in screens)


def refused(deck_names, text, name="bad.toml") -> DeckError:
    with pytest.raises(DeckError) as caught:
        parse_deck(text, name, deck_names)
    return caught.value


# (a deck, the screen, the field, words the message holds)
BAD = {
    "missing minutes": (deck(PAGE.replace("minutes = 2\n", "")), 1, "minutes", "missing"),
    "missing title": (deck(PAGE.replace('title = "Masking"\n', "")), 1, "title", "missing"),
    "missing page": (deck(PAGE.replace('page = "masking"\n', "")), 1, "page", "missing"),
    "missing kind": (deck(PAGE.replace('kind = "page"\n', "")), 1, "kind", "none is given"),
    "unknown kind": (deck(PAGE.replace('"page"\n', '"slide"\n', 1)), 1, "kind", "'slide'"),
    "minutes in words": (deck(PAGE.replace("minutes = 2", 'minutes = "five"')), 1, "minutes", "'five'"),
    "no minutes at all": (deck(PAGE.replace("minutes = 2", "minutes = 0")), 1, "minutes", "from 0.25 to 30"),
    "a day on one screen": (deck(PAGE.replace("minutes = 2", "minutes = 1440")), 1, "minutes", "1440"),
    "minutes true": (deck(PAGE.replace("minutes = 2", "minutes = true")), 1, "minutes", "'true'"),
    "minutes nan": (deck(PAGE.replace("minutes = 2", "minutes = nan")), 1, "minutes", "'nan'"),
    "title a number": (deck(PAGE.replace('title = "Masking"', "title = 3")), 1, "title", "text in quotes"),
    "a typo": (deck(PAGE + "minuts = 3\n"), 1, "minuts", "'minuts' is not a setting here; did you mean 'minutes'?"),
    "a typo in the lesson": (deck(PAGE + "lesson = { dmodel = 8 }\n"), 1, "lesson.dmodel", "not a setting"),
    "a view the lab lacks": (deck(PAGE + "view = { zoom = 2 }\n"), 1, "view.zoom", "not a setting"),
    "a step of a video": (deck('kind = "video"\ntitle = "V"\nminutes = 1\nscene = "scores"\nstep = "softmax"'),
                          1, "step", "not a setting"),
    "unknown page": (deck(PAGE.replace('"masking"', '"attention-is-all"')), 1, "page", "not a page of the lab"),
    "unknown preset": (deck(PAGE + 'preset = "gpt-4"\n'), 1, "preset", "'gpt-4' is not a preset"),
    "a bad lesson setting": (deck(PAGE + "lesson = { d_model = 10 }\n"), 1, "lesson.num_heads",
                             "d_model 10 is not divisible by 4 heads"),
    "a temperature out of range": (deck(PAGE + "lesson = { temperature = 500 }\n"), 1, "lesson.temperature",
                                   "The temperature must be between 0.01 and 100, got 500.0."),
    "a whole number as a decimal": (deck(PAGE + "lesson = { d_model = 16.0 }\n"), 1, "lesson.d_model",
                                    "d_model must be a whole number"),
    "a matrix of words": (deck(PAGE + 'lesson = { source = "manual", d_model = 2, num_heads = 1, q = [["a", 1]], '
                               'k = [[1, 0]], v = [[1, 0]] }\n'), 1, "lesson.q", "Q must be rows of numbers"),
    "a device": (deck(PAGE + 'lesson = { device = "cuda" }\n'), 1, "lesson.device", "not a setting"),
    "a lesson that is a list": (deck(PAGE + "lesson = [1, 2]\n"), 1, "lesson", "a list"),
    "unknown scene": (deck('kind = "scene"\ntitle = "S"\nminutes = 1\nscene = "rnn"\nstep = "x"'), 1, "scene",
                      "'rnn' is not a scene"),
    "a step in words": (deck('kind = "scene"\ntitle = "S"\nminutes = 1\nscene = "scores"\nstep = "the end"'), 1,
                        "step", "'the end'"),
    "unknown question": (deck('kind = "question"\ntitle = "Q"\nminutes = 1\nquestion = "essay"'), 1, "question",
                         "'essay'"),
    "a head the lesson lacks": (deck('kind = "question"\ntitle = "Q"\nminutes = 1\nquestion = "focus"\nhead = 5'),
                                1, "head", "from 1 to 4, got '5'"),
    "a change a focus question ignores": (deck('kind = "question"\ntitle = "Q"\nminutes = 1\nquestion = "focus"\n'
                                               'change = "scale:off"'), 1, "change", "not a setting"),
    "an unknown change": (deck('kind = "question"\ntitle = "Q"\nminutes = 1\nquestion = "change"\n'
                               'change = "heads*3"'), 1, "change", "Unknown change 'heads*3'"),
    "an unknown mask": (deck('kind = "question"\ntitle = "Q"\nminutes = 1\nquestion = "blocked"\nmask = "veil"'),
                        1, "mask", "'veil'"),
    "a one-layer film question": (deck('kind = "question"\ntitle = "Q"\nminutes = 1\nquestion = "film"\n'
                                       'film = { layers = 1 }'), 1, "film.layers", "needs 2 layers"),
    "a bad film setting": (deck('kind = "film"\ntitle = "F"\nminutes = 1\nfilm = { layers = 3 }'), 1, "film.layers",
                           "The number of layers must be between 1 and 2, got 3."),
    "a step after the film": (deck(f'kind = "film"\ntitle = "F"\nminutes = 1\nat = {STEPS + 1}'), 1, "at",
                              f"from 0 to {STEPS}"),
    "no screens": (HEAD, 0, "screen", "[[screen]]"),
    "screens as a number": (HEAD + "screen = 3\n", 0, "screen", "[[screen]]"),
    "no title": (deck(PAGE).replace(HEAD, ""), 0, "title", "missing"),
    "a typo at the top": (deck(PAGE).replace("title", "titel", 1), 0, "titel", "not a setting"),
    "a 270-minute deck": (deck(*[PAGE.replace("minutes = 2", "minutes = 30")] * 9), 0, "minutes", "at most 240"),
    "a title too long": (deck(PAGE.replace('"Masking"', '"' + "x" * 500 + '"')), 1, "title", "500 characters"),
    "a bidi override": (deck(PAGE.replace('"Masking"', '"Mas\\u202eking"')), 1, "title", "\\u202e"),
    "a NUL in a string": (deck(PAGE + 'notes = "a\\u0000b"\n'), 1, "notes", "\\u0000"),
    "not TOML": (HEAD + "[[screen]\n", 0, "", "not valid TOML"),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_bad_deck_is_refused_naming_the_screen_and_the_field(deck_names, case):
    text, screen, field, words = BAD[case]
    err = refused(deck_names, text)
    assert (err.screen, err.field) == (screen, field), str(err)
    assert words in str(err)
    if screen:
        assert str(err).startswith(f"Screen {screen}") and f"field {field}:" in str(err)


def test_a_bad_screen_is_named_by_its_number_and_title(deck_names):
    err = refused(deck_names, deck(PAGE, PAGE.replace("Masking", "Softmax").replace("minutes = 2", "minutes = -1")))
    assert str(err).startswith("Screen 2 ('Softmax'), field minutes: ")


LINKS = ["https://evil.example/", "http://evil.example", "//evil.example/masking", "../../etc/passwd",
         "/etc/passwd", "javascript:alert(1)", "file:///etc/passwd", "masking?x=1", "masking/../room",
         "C:\\deck\\masking", "www.evil.example", "evil.example", "%2e%2e/room", "masking#top", "data:text/html,x"]


@pytest.mark.parametrize("link", LINKS)
def test_a_link_outside_the_lab_is_refused(deck_names, link):
    err = refused(deck_names, deck(PAGE.replace('"masking"', json.dumps(link))))
    assert (err.screen, err.field) == (1, "page")
    assert "link" in str(err) or "not a page of the lab" in str(err)


def test_a_page_written_as_an_address_is_told_how_to_write_it(deck_names):
    assert "without the slash ('masking')" in str(refused(deck_names, deck(PAGE.replace('"masking"', '"/masking"'))))


@pytest.mark.parametrize("field", ["notes", "handout", "title"])
def test_a_link_in_any_text_is_refused(deck_names, field):
    text = deck(PAGE.replace('title = "Masking"\n', "") + f'{field} = "Log in at https://evil.example now"\n' +
                ('title = "T"\n' if field != "title" else ""))
    err = refused(deck_names, text)
    assert (err.screen, err.field) == (1, field) and "link" in str(err)


def test_a_link_in_a_view_or_a_lesson_is_refused(deck_names):
    assert refused(deck_names, deck(PAGE + 'view = { sentence = "www.evil.example" }')).field == "view.sentence"
    assert refused(deck_names, deck(PAGE + 'lesson = { text = "see http://x.example" }')).field == "lesson.text"


def test_a_huge_file_is_refused_before_it_is_parsed(deck_names):
    err = refused(deck_names, deck(PAGE) + "# " + "x" * MAX_DECK_BYTES)
    assert err.screen == 0 and "larger than 256 KB" in str(err)


def test_a_ten_megabyte_string_is_refused(deck_names, tmp_path):
    huge = deck(PAGE + 'notes = "' + "x" * 10_000_000 + '"\n')
    assert "larger than 256 KB" in str(refused(deck_names, huge))
    path = tmp_path / "huge.toml"
    path.write_text(huge, encoding="utf-8")
    with pytest.raises(DeckError, match="larger than 256 KB"):
        load_deck(path, deck_names)


def test_very_many_screens_are_refused(deck_names):
    err = refused(deck_names, deck(*[PAGE] * (MAX_SCREENS + 1)))
    assert (err.screen, err.field) == (0, "screen") and f"at most {MAX_SCREENS}" in str(err)


@pytest.mark.parametrize("nested", [
    "a = " + "[" * 100_000 + "]" * 100_000,  # tomllib recurses on these
    "a = " + "{b = " * 30_000 + "1" + "}" * 30_000,
    "[" + "a." * 50_000 + "b]\nc = 1",  # and builds these without recursion, as deep as the file is long
])
def test_deeply_nested_tables_and_arrays_are_refused(deck_names, nested):
    err = refused(deck_names, deck(PAGE) + nested + "\n")
    assert err.screen == 0 and "deeper" in str(err)


def test_a_nesting_inside_a_screen_names_the_screen(deck_names):
    err = refused(deck_names, deck(PAGE + "lesson = { q = [[[1.0]]] }\n"))
    assert (err.screen, err.field) == (1, "lesson.q.0") and "deeper" in str(err)


def test_a_nul_byte_and_invalid_utf8_are_refused_with_their_line(deck_names):
    assert str(refused(deck_names, deck(PAGE.replace("Masking", "Mask\x00ing")))).startswith("Line 4 ")  # the title's
    assert str(refused(deck_names, deck(PAGE.replace("Masking", "Mask\x00ing")).encode())).startswith("Line 4 ")
    err = refused(deck_names, deck(PAGE).encode().replace(b"Masking", b"Mask\xff\xfeing"))
    assert err.screen == 0 and "not UTF-8" in str(err) and "line 4" in str(err)
    assert "not text" in str(refused(deck_names, deck(PAGE.replace("Masking", "Mask\ud800ing"))))


def test_an_integer_too_long_to_read_is_refused(deck_names):
    assert "not valid TOML" in str(refused(deck_names, deck(PAGE.replace("minutes = 2", "minutes = " + "9" * 5000))))


def test_a_file_that_is_not_there_or_is_a_folder_is_refused(deck_names, tmp_path):
    for path in (tmp_path / "none.toml", tmp_path):
        with pytest.raises(DeckError, match="cannot be read"):
            load_deck(path, deck_names)


def test_a_message_quotes_no_invisible_character(deck_names):
    err = refused(deck_names, deck(PAGE + '"a\\u0007b" = 1\n'))
    assert "\x07" not in str(err) and "'a\\u0007b' is not a setting" in str(err) and err.field == "a\\u0007b"


VALUES = st.one_of(st.integers(-2**70, 2**70), st.floats(), st.booleans(), st.text(max_size=30),
                   st.lists(st.lists(st.one_of(st.integers(-3, 3), st.booleans(), st.text(max_size=3)), max_size=3),
                        max_size=3))
KEYS = ["kind", "title", "minutes", "notes", "page", "preset", "view", "scene", "step", "question", "head",
        "seed", "change", "mask", "film", "at", "lesson"]


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(value), repr(value))
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, str) else str(value)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(KEYS), st.one_of(VALUES, st.sampled_from(
    ['"page"', '"question"', '"film"', '"scene"', '"focus"', '"masking"', '"scores"', '{ d_model = 8 }',
     '{ layers = 1 }', '{ step = 2 }']).map(lambda raw: ("raw", raw))), max_size=8))
def test_nothing_but_a_deck_error_comes_out_of_any_screen(deck_names, fields):
    """Any value of any type in any field: a deck, or one DeckError."""
    lines = [f"{key} = {raw[1] if isinstance(raw, tuple) else toml_value(raw)}" for key, raw in fields.items()]
    try:
        parse_deck(deck("\n".join(lines)), "fuzz.toml", deck_names)
    except DeckError:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400) | st.text(max_size=400))
def test_nothing_but_a_deck_error_comes_out_of_any_file(deck_names, data):
    try:
        text = deck(PAGE).encode() + data if isinstance(data, bytes) else deck(PAGE) + data
        parse_deck(text, "fuzz.toml", deck_names)
    except DeckError:
        pass
