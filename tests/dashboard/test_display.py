"""Display settings (issue 11): projector mode and the weights' colour scale, from the sidebar and
the URL into every chart's signals; the theme's CSS and reload script hold only constants; and
the claim behind the cell ink: for every colour of every scale, black or white reaches 4.5:1."""

import json
import re

import pytest

from animations import style
from dashboard import display
from dashboard.charts import sizing
from tests.conftest import shown

from .conftest import no_exception
from .projector_checks import contrast


def signals(at, lab: str) -> dict:
    """The signal values of the first chart named `lab`."""
    for element in at.get("vega_lite_chart"):
        spec = json.loads(element.proto.spec)
        if spec.get("usermeta", {}).get("lab") == lab:
            return {p["name"]: p.get("value") for p in spec.get("params", [])}
    raise AssertionError(f"no chart {lab}")


@pytest.mark.parametrize("colour", [*style.WEIGHT_STOPS, *style.SCORE_STOPS, style.MASKED])
def test_black_or_white_ink_reaches_aa_on_every_colour_the_scales_draw(colour):
    assert max(contrast(sizing.INK_DARK, colour), contrast(sizing.INK_LIGHT, colour)) >= 4.5


def test_a_link_with_projector_mode_gives_every_chart_the_projector_look(make_app):
    at = make_app(query={"projector": "1"})
    no_exception(at)
    assert at.toggle(key="view_projector").value is True
    got = signals(at, "weights")
    assert got["lab_type"] == sizing.PROJECTOR.scale and got["lab_min_font"] == sizing.PROJECTOR.min_number_px
    at.toggle(key="view_projector").set_value(False).run()
    assert signals(at, "weights")["lab_type"] == sizing.ORDINARY.scale
    assert "projector" not in at.query_params


def test_the_weights_colour_scale_follows_the_sidebar_and_the_link(make_app):
    at = make_app(query={"weights": "row"})
    assert signals(at, "weights")["lab_by_row"] is True
    at.radio(key="view_weights").set_value("fixed").run()
    assert signals(at, "weights")["lab_by_row"] is False
    assert "weights" not in at.query_params
    at.radio(key="view_weights").set_value("row").run()
    assert at.query_params["weights"] == ["row"] or at.query_params["weights"] == "row"


def test_a_link_asking_for_an_unknown_weights_scale_opens_the_fixed_one_and_says_so(make_app):
    at = make_app(query={"weights": "<b>bold</b>"})
    no_exception(at)
    assert signals(at, "weights")["lab_by_row"] is False
    assert "asks for colours of the weights '<b>bold</b>'" in " ".join(shown(w.value) for w in at.sidebar.warning)


@pytest.mark.parametrize("look", [sizing.ORDINARY, sizing.PROJECTOR])
def test_the_page_css_is_built_from_constants(look):
    css = display.page_css(look)
    assert display.PHONE_CSS in css  # a constant, as the question bar's rules (checked as such below)
    css = css.replace(display.PHONE_CSS, "")
    rules = [r for r in css.removeprefix("<style>").removesuffix("</style>").splitlines()
             if r not in display.QUESTION_BAR_CSS + display.PRESENT_CSS]  # constants
    width = r'(\d+px|min\(\d+px, [\d.]+vh, [\d.]+vw\))'  # projector mode: a share of the window
    allowed = re.compile(rf'(\.stHorizontalBlock\[class\*="st-key-lab_w\d+_"\] \{{--lab-panel: {width};\}}'
                         r'|\.stHorizontalBlock\[class\*="st-key-lab_w"\] > \[data-testid="stLayoutWrapper"\] '
                         r'\{flex: 1 1 var\(--lab-panel\); min-width: min\(var\(--lab-panel\), 100%\);\}'
                         r'|\[data-testid="stVegaLiteChart"\] \.mark-text\.role-mark text \{pointer-events: none;\}'
                         r'|html \{font-size: clamp\(16px, min\([\d.]+vh, [\d.]+vw\), \d+px\) !important;\}'
                         r'|\[data-testid="(stMainBlockContainer|stCaptionContainer|stHeader)"\]'
                         r'( \*|, \[data-testid="stCaptionContainer"\] \*)? \{[-a-z: .0-9!;]+\}'
                         r'|\[data-testid="stMain"\] h1 \{[-a-z: .0-9!;]+\}'
                         r'|\[data-testid="stMain"\] [-\[\]a-zA-Z="^ ,]+ \{font-size: 1rem !important;\}'
                         r'|\[data-testid="stElementContainer"\]:has\(> \[data-testid="stHtml"\] > script\) '
                         r'\{display: none;\}'
                         r'|button\[data-testid\^="stBaseButton-primary"\]:not\(:disabled\)(:hover)? '
                         r'\{[-a-z: #0-9A-F!;]+\})')
    assert rules and all(allowed.fullmatch(rule) for rule in rules), [r for r in rules if not allowed.fullmatch(r)]



@pytest.mark.parametrize("name, value", [("attention_lab_seat", "x'; alert(1); '"), ("a;b", "1"),
                                         ("attention_lab_room", "</script><b>x</b>")])
def test_the_cookie_script_holds_nothing_but_letters_digits_and_dashes(name, value):
    with pytest.raises(ValueError, match="letters, digits"):
        display.set_cookies({name: value}, hours=1)


def test_the_model_views_labels_grow_with_the_projector_look():
    """The Trained heads' model view (a Canvas) drew its head and layer names at 13 px in every look; its
    type now follows the look as every other chart's does."""
    import numpy as np

    from dashboard.charts import draw
    from dashboard.charts.model_view import model_view

    spec = draw.spec_without_data(model_view(np.full((2, 3, 4, 4), 0.25), np.ones((2, 3), bool)))
    draw.set_look(spec, sizing.PROJECTOR)
    values = {p["name"]: p.get("value") for p in spec["params"]}
    assert values["lab_type"] == sizing.PROJECTOR.scale and values["lab_fit_height"] == sizing.PROJECTOR.fit_height
    sizes = [spec["encoding"][axis]["axis"]["labelFontSize"] for axis in ("x", "y")]
    sizes.append(spec["encoding"]["color"]["legend"]["labelFontSize"])
    assert sizes == [sizing.scaled(13)] * 3


@pytest.mark.parametrize("query, widget, key, value", [({"projector": "2"}, "toggle", "view_projector", False),
                                                        ({"weights": "rows"}, "radio", "view_weights", "fixed"),
                                                        ({"weights": "row"}, "radio", "view_weights", "row")])
def test_a_links_display_setting_is_read_and_one_that_cannot_be_is_said(make_app, query, widget, key, value):
    """projector= takes 1 or 0, weights= one of its scales; another value keeps the default and the
    sidebar says what the link asked for, as text."""
    at = make_app(query=query)
    no_exception(at)
    assert getattr(at, widget)(key=key).value == value
    said = [shown(w.value) for w in at.sidebar.warning]
    bad = query != {"weights": "row"}
    asked = f"'{next(iter(query.values()))}', which"
    assert any(asked in w and "does not have; it shows its default instead" in w for w in said) == bad, said
