"""Links from anywhere: random, out-of-range, repeated or hostile query parameters never give a
traceback; the page opens (with a notice when a setting cannot work) and keeps working."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from dashboard.lesson.state import CONFIG_FIELDS

from .conftest import APP

HOSTILE = ["", "-1", "0", "1e309", "nan", "inf", "99999999999999999999", "<script>alert(1)</script>",
           "'; rm -rf / #", "../../etc/passwd", "{{datum.x}}", "🙂" * 50, "\u202eevil", "\x00\x07", "1,0;0,x",
           "10;01", "true", "cuda", "mps", "rotary", "custom", "padding", "manual"]

values = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40), st.integers(-10**6, 10**6).map(str))
links = st.dictionaries(st.sampled_from(list(CONFIG_FIELDS) + ["head", "step", "utm"]), values, max_size=6)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(links)
def test_any_link_opens_without_a_traceback(query):
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params = query
    at.run()
    assert not at.exception, (query, [e.value for e in at.exception])
    assert at.title, "the page drew nothing"
    # The page keeps working: a control still changes the lesson.
    at.text_input(key="ctl_seed").set_value("7").run()
    assert not at.exception, (query, [e.value for e in at.exception])
    assert at.query_params.get("seed") in (["7"], "7")
