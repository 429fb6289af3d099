"""The phone-sized view (phone.phone_view): which browsers are phones, by their User-Agent; on a phone the
Trained heads' grid turned a quarter and its table one measure at a time, and Watch it learn's open head as one
query's row; everywhere else no switch at all and the full charts (AppTest sends no User-Agent: a laptop).

A phone session here is AppTest with phone.user_agent answering an iPhone's User-Agent: the page reads it
through the same is_phone a browser's goes through (tests/dashboard/test_phone_browser.py sends a real one)."""

import json

import numpy as np
import pytest

import dashboard.app_pages.film as film_parts
from classroom.films.service import FilmService
from core import trained_trace
from core.film import LearnSettings
from dashboard import phone as phones
from tests.core.conftest import needs_model
from tests.films import trained

from .conftest import chart, no_exception

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")
ANDROID_PHONE = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                 "Chrome/126.0.6478.122 Mobile Safari/537.36")
# iPadOS's Safari asks for desktop sites by default: it says it is a Mac.
IPAD = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 "
        "Safari/605.1.15")
ANDROID_TABLET = ("Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/126.0.6478.122 Safari/537.36")
DESKTOP_CHROME = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 "
                  "Safari/537.36")
SWITCH = "Phone-sized view"
FILM = LearnSettings(steps=100)  # the default model, trained briefly: its induction head has formed


@pytest.mark.parametrize("agent, phone", [(IPHONE, True), (ANDROID_PHONE, True), (IPAD, False),
                                          (ANDROID_TABLET, False), (DESKTOP_CHROME, False), (None, False),
                                          ("", False)])
def test_a_phone_is_a_browser_whose_user_agent_says_mobi(agent, phone):
    assert phones.is_phone(agent) is phone


@pytest.fixture
def on_a_phone(monkeypatch):
    monkeypatch.setattr(phones, "user_agent", lambda: IPHONE)


def switches(at) -> list[str]:
    return [t.label for t in at.toggle]


def specs(at) -> list[dict]:
    return [json.loads(e.proto.spec) for e in at.get("vega_lite_chart")]


def labs(at) -> list[str]:
    """The charts on the page by name; a phone's grid is "model-view-phone"."""
    return [s["usermeta"]["lab"] + "-phone" * s["usermeta"].get("template", "").endswith("-phone") for s in specs(at)]


# -- Trained heads ----------------------------------------------------------------------------------
def trained_heads(make_app):
    at = make_app(page="trained_heads")
    no_exception(at)
    return at


@needs_model
def test_a_laptop_gets_no_switch_and_the_full_grid_and_table(make_app):
    at = trained_heads(make_app)
    assert SWITCH not in switches(at)
    assert "model-view" in labs(at) and "model-view-phone" not in labs(at)
    (table,) = at.dataframe
    assert list(table.value.columns[:3]) == ["layer", "head", "previous"] and table.value.shape[1] == 9


@needs_model
def test_on_a_phone_the_grid_has_a_column_per_layer_and_the_table_one_measure(on_a_phone, make_app):
    at = trained_heads(make_app)
    assert switches(at).count(SWITCH) == 1 and at.toggle(key="phone_view_switch").value
    (grid,) = [s for s in specs(at) if s["usermeta"].get("template", "").endswith("-phone")]
    calculated = {t["as"]: t["calculate"] for t in grid["transform"] if "calculate" in t}
    assert calculated["x"].startswith("(datum.layer - 1)") and calculated["y"].startswith("(datum.head - 1)")
    assert grid["encoding"]["x"]["axis"]["title"] == "layer" and len(grid["encoding"]["x"]["axis"]["values"]) == 6
    assert grid["encoding"]["y"]["axis"]["title"] == "head" and len(grid["encoding"]["y"]["axis"]["values"]) == 12
    assert [p["name"] for p in grid["params"] if "select" in p] == ["pick"]  # a tap opens a head as a click does
    assert "Tap a thumbnail to open that head" in " ".join(c.value for c in at.caption)
    # The table: layer, head and the measure picked, the same numbers as core's patterns of the sentence.
    text = at.text_input(key="trained_box").value
    (table,) = at.dataframe
    assert list(table.value.columns) == ["layer", "head", "previous"]
    at.selectbox(key="trained_table_measure").select("cls").run()
    (table,) = at.dataframe
    assert list(table.value.columns) == ["layer", "head", "[CLS]"]
    cls = trained_trace(text).weights[:, :, 1:-1, 0].mean(axis=-1)  # (L, H): the word pieces' rows, on [CLS]
    np.testing.assert_allclose(table.value["[CLS]"].to_numpy(), cls.reshape(-1), atol=2e-4)
    assert table.value.loc[14, ["layer", "head"]].tolist() == [2, 3]  # row 14: layer 2, head 3 (12 heads a layer)


@needs_model
def test_the_switch_off_brings_the_full_charts_back_and_stays_off(on_a_phone, make_app):
    at = trained_heads(make_app)
    at.toggle(key="phone_view_switch").set_value(False).run()
    no_exception(at)
    assert "model-view" in labs(at) and "model-view-phone" not in labs(at)
    assert at.dataframe[0].value.shape[1] == 9
    at.run()
    assert not at.toggle(key="phone_view_switch").value and "model-view-phone" not in labs(at)


# -- Watch it learn ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def film(tmp_path_factory):
    """A 100-step run of the default model, on disk, and the page's film service reading it."""
    service = FilmService(media_dir=tmp_path_factory.mktemp("media"), warm=False)
    made = trained(FILM)
    made.save(service.store.folder(FILM.key()))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(film_parts, "service", lambda: service)
        yield made
    service.shutdown()


def watch(make_app):
    at = make_app(query={"film_steps": str(FILM.steps)}, page="watch-it-learn")
    at.button(key="film_q_which_skip").click().run()
    no_exception(at)
    return at


def test_a_laptop_gets_the_whole_heatmap_of_the_open_head(film, make_app):
    at = watch(make_app)
    assert SWITCH not in switches(at) and "film-head" in labs(at) and "film-row" not in labs(at)


def test_on_a_phone_the_open_head_is_one_row_of_a_letter_in_the_second_copy(film, on_a_phone, make_app):
    at = watch(make_app)
    assert switches(at).count(SWITCH) == 1 and "film-head" not in labs(at)
    layer, head = film.induction_head()  # the head the page opens
    query = at.selectbox(key="film_phone_query").value  # from 1
    probe = film.probe.tolist()
    earlier = [j for j in range(query - 1) if probe[j] == probe[query - 1]]
    assert len(earlier) == 1, "the default query's letter is one of the repeated stretch's (each there twice)"
    row = chart(at, "film-row")
    np.testing.assert_array_equal(row["weight"].to_numpy(), film.weights[-1, layer - 1, head - 1, query - 1]
                                  .astype(float))  # the film opens at its end
    said = " ".join(c.value for c in at.caption)
    # an induction head looks at the letter after the earlier copy of the query's own letter
    assert f"an induction head looks mostly at letter {earlier[0] + 2}," in said
    at.selectbox(key="film_phone_query").select(3).run()
    assert chart(at, "film-row")["weight"].to_numpy()[3:].sum() == 0  # the causal mask: nothing after letter 3
    assert "Pick a letter of the second copy" in " ".join(c.value for c in at.caption)
