"""The pages' own controls (which head, which step, which mask to show, "Predict first"...): how a
page looks, not what the lesson is. Each is mirrored in the URL (state.view_param), so a shared link
shows the same screen, and a link's value that a page cannot show is said, not dropped.

Each page keeps its controls' state under keys of its own (`state_key`): page 1's head (up to 64) and
the Trained heads page's head (up to 12) are two settings, not one. The display settings are the
app's, shared by every page: `projector()` and `by_row()` read them (the sidebar draws their
controls: display.py), and `row()` lays a page's controls out for the display."""

from contextlib import nullcontext

import streamlit as st

from core.errors import quote
from dashboard import navigation
from dashboard.lesson import state
from dashboard.text import plain

PROJECTOR, WEIGHTS, CAPTIONS = "projector", "weights", "captions"  # the display settings' names, in the URL
SCALES = {"fixed": "0 to 1 (compare rows)", "row": "0 to the row's largest (see its shape)"}
DISPLAY_NOTICE = "display_link_notice"  # a link's display setting that cannot be (said in the sidebar)
PREDICT_FIRST = "predict_first"  # the "Predict first" switch: one setting for every page


def state_key(name: str, shared: bool = False, page: str | None = None) -> str:
    """The session-state key of the view setting `name`: the app's (`shared`), or a page's own (this
    run's page, or the page file named `page`)."""
    return f"view_{name}" if shared else f"view_{page or st.session_state.get(navigation.HERE, '')}_{name}"


def _from_link(key: str, name: str, parse, what: str, default):
    """The control's starting value: the opening link's, else the default (saying why, if the
    link asked for something this page does not have)."""
    if key not in st.session_state:
        try:
            value = state.view_from_url(name, parse)
        except ValueError as err:
            st.warning(plain(f"This link asks for {what} {quote(err)}, which this page does not have; it "
                             "shows its default instead."), icon="🔗")
            value = None
        st.session_state[key] = default if value is None else value


def _in(options):
    """A parser that accepts only one of `options` (compared as text)."""
    by_text = {str(o): o for o in options}

    def parse(raw):
        if str(raw) not in by_text:
            raise ValueError(raw)
        return by_text[str(raw)]

    return parse


# -- the display settings (drawn in the sidebar by display.py; read by every page) -----------------
def _opened_with(name: str, parse, default):
    """The value before the widget is drawn (the look is needed first): the session's, else the
    opening link's, else `default`; a link's value that cannot be is said in the sidebar."""
    key = state_key(name, shared=True)
    if key not in st.session_state:
        try:
            value = state.view_from_url(name, parse)
        except ValueError as err:
            st.session_state[DISPLAY_NOTICE] = (f"This link asks for {name} {quote(err)}, which the lab does "
                                                "not have; it shows its default instead.")
            value = None
        st.session_state[key] = default if value is None else value
    return st.session_state[key]


def projector() -> bool:
    return bool(_opened_with(PROJECTOR, _on_off, False))


def captions() -> bool:
    """Whether the narrated videos show their captions (the band beneath the picture): on unless switched off."""
    return bool(_opened_with(CAPTIONS, _on_off, True))


def part(parts: tuple[str, ...]) -> str | None:
    """The one part of a long page that a link asks the projector to show (`part=grid`: a deck's screen about
    that part, sized to fit the screen), or None: the whole page. Projector mode only: a laptop or a phone
    shows the whole page, which scrolls."""
    key = state_key("part")
    _from_link(key, "part", _in(parts), "the part", None)
    state.view_param("part", st.session_state[key], None)
    return st.session_state[key] if projector() else None


def by_row() -> bool:
    return _opened_with(WEIGHTS, _in(SCALES), "fixed") == "row"


def row():
    """Where a lesson's controls go: in projector mode side by side in one row (it wraps when
    narrow), so that the chart below them fits the screen; elsewhere one under another."""
    if projector():
        return st.container(horizontal=True, vertical_alignment="bottom", gap="medium")
    return nullcontext()


# -- a page's controls ------------------------------------------------------------------------------
HEAD_BUTTONS_UP_TO = 16  # heads offered as a row of buttons up to this many; a slider beyond


def _keep_open(key: str):
    """on_change of a row of numbered buttons: the open one's button clicked off leaves it open."""
    if st.session_state[key] is None:
        st.session_state[key] = st.session_state.get(f"{key}_open", 1)


def head_control(num_heads: int) -> int:
    """Pick one head (0-based); `head` in the URL (1-based).

    Up to HEAD_BUTTONS_UP_TO heads, a row of numbered buttons: one click (or tap) opens a head, a
    large target on a projector. It is also far cheaper for the browser than a slider, which the
    lesson's view redraws on every rerun (docs/performance.md)."""
    key = state_key("head")
    _from_link(key, "head", _in(range(1, num_heads + 1)), "head", 1)
    if num_heads == 1:
        st.caption("One head.")
        st.session_state.pop(key, None)
        return 0
    st.session_state[key] = min(max(1, int(st.session_state[key] or 1)), num_heads)  # fewer heads now: the last
    if num_heads <= HEAD_BUTTONS_UP_TO:
        return buttons("Head to inspect", 1, num_heads, "head", 1) - 1
    with st.columns([1, 2])[0]:
        head = st.slider("Head to inspect", 1, num_heads, key=key)
    state.view_param("head", head, 1)
    return head - 1


class _Step:
    """One step of `tabs`: `open` if it is the chosen one; `with step:` draws into it."""

    def __init__(self, is_open: bool):
        self.open = is_open
        self._box = None  # made where it is first entered: below the row of controls that chose it

    def __enter__(self):
        if self._box is None:
            self._box = st.container()
        return self._box.__enter__()

    def __exit__(self, *exc):
        return self._box.__exit__(*exc)


def _keep_one(key: str, default: str):
    """on_change: the chosen step clicked off chooses the default, so one step is always shown chosen."""
    if st.session_state[key] is None:
        st.session_state[key] = default


def _step_by(key: str, steps: list[str], default: str, by: int):
    """on_click of ← / →: the step before or after the chosen one (the first and last stay put)."""
    now = steps.index(st.session_state.get(key) or default)
    st.session_state[key] = steps[min(max(0, now + by), len(steps) - 1)]


def tabs(steps: list[str], name: str, default: str, arrows: bool = False):
    """Steps of which only the chosen one runs, picked on a row of buttons (st.segmented_control);
    its number (1-based) in the URL as `name`. `arrows` (projector mode: a step per screen): ← and →
    buttons beside them, which the keyboard's ← and → press (display.page_config binds them).

    Not `st.tabs`: in the browser its tab panel watches its own contents and, on every change,
    walks them looking for a focusable element, checking each node's visibility; with a chart's
    SVG inside, that walk was most of a slider move on page 1 (docs/performance.md)."""
    key = state_key(name)
    numbers = {str(i + 1): s for i, s in enumerate(steps)}
    _from_link(key, name, lambda raw: numbers[str(raw)] if str(raw) in numbers else _bad(raw), name, default)
    if st.session_state[key] not in steps:
        st.session_state[key] = default
    at = steps.index(st.session_state[key])
    row = st.container(horizontal=True, vertical_alignment="center", width="content") if arrows else nullcontext()
    with row:
        chosen = _step_row(steps, key, default, at, arrows)
    if chosen is None:  # the chosen button clicked off: the default is drawn (and chosen again next run)
        chosen = default
    state.view_param(name, steps.index(chosen) + 1, steps.index(default) + 1)
    return [_Step(s == chosen) for s in steps]


def _step_row(steps: list[str], key: str, default: str, at: int, arrows: bool):
    if arrows:
        st.button("←", key=f"{key}_lab_prev", help="The step before (← on the keyboard)", disabled=at == 0,
                  on_click=_step_by, args=(key, steps, default, -1))
    chosen = st.segmented_control("Step", steps, key=key, label_visibility="collapsed", on_change=_keep_one,
                                  args=(key, default))
    if arrows:
        st.button("→", key=f"{key}_lab_next", help="The step after (→ on the keyboard)",
                  disabled=at == len(steps) - 1, on_click=_step_by, args=(key, steps, default, 1))
    return chosen


def _bad(raw):
    raise ValueError(raw)


def choice(widget, label: str, options: list, name: str, default, shared: bool = False, **kwargs):
    """A page control with a fixed set of options (st.radio, st.selectbox, st.segmented_control...)."""
    key = state_key(name, shared)
    _from_link(key, name, _in(options), f"{label.lower()}", default)
    if st.session_state[key] not in options:
        st.session_state[key] = default
    value = widget(label, options, key=key, **kwargs)
    if value is None and default is not None:  # a segmented control clicked off: back to the default
        value = st.session_state[key] = default
    state.view_param(name, value, default)
    return value


def buttons(label: str, low: int, high: int, name: str, default: int) -> int:
    """A page control on a row of numbered buttons (st.segmented_control), low to high; cheaper
    for the browser to redraw than a slider (head_control says how much)."""
    key = state_key(name)
    _from_link(key, name, _in(range(low, high + 1)), label.lower(), default)
    if st.session_state[key] not in range(low, high + 1):
        st.session_state[key] = default
    value = st.segmented_control(label, list(range(low, high + 1)), key=key, on_change=_keep_open, args=(key,))
    st.session_state[f"{key}_open"] = value
    state.view_param(name, value, default)
    return value


def number(label: str, low: int, high: int, name: str, default: int, **kwargs) -> int:
    """A page control on a whole-number slider."""
    key = state_key(name)
    _from_link(key, name, _in(range(low, high + 1)), label.lower(), default)
    if st.session_state[key] not in range(low, high + 1):  # e.g. fewer layers or heads than last time
        st.session_state[key] = min(max(low, int(st.session_state[key])), high)
    value = st.slider(label, low, high, key=key, **kwargs)
    state.view_param(name, value, default)
    return value


def _on_off(raw):
    return {"1": True, "0": False}[raw] if raw in ("0", "1") else _bad(raw)


def flag_before(label: str, name: str, default: bool = False) -> bool:
    """The value `flag(label, name, default)` will have, before it is drawn (where it goes may depend on it)."""
    key = state_key(name)
    _from_link(key, name, _on_off, label.lower(), default)
    return bool(st.session_state[key])


def flag(label: str, name: str, default: bool = False, shared: bool = False, **kwargs) -> bool:
    """A page control that is on or off (st.toggle); `name=1` in the URL when on."""
    key = state_key(name, shared)
    _from_link(key, name, _on_off, label.lower(), default)
    value = st.toggle(label, key=key, **kwargs)
    state.view_param(name, int(value), int(default))
    return value


def predict_first(slot: str) -> bool:
    """The "Predict first" toggle (app_pages/predict.py); one setting for every page, `predict=1` in the URL."""
    ss, key = st.session_state, f"predict_switch_{slot}"
    if PREDICT_FIRST not in ss:
        ss[PREDICT_FIRST] = state.view_from_url("predict", lambda raw: raw == "1") or False
    ss[key] = ss[PREDICT_FIRST]
    on = st.toggle("Predict first", key=key, on_change=lambda: ss.__setitem__(PREDICT_FIRST, ss[key]),
                   help="Hide the answer until you have committed to a prediction: students who predict before a "
                        "demonstration explain its outcome better later than those who only watch (Crouch et al. "
                        "2004).")
    state.view_param("predict", int(on), 0)
    return on
