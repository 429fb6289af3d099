"""The lesson's one home: the `AttentionConfig` in `st.session_state["lesson"]`, mirrored in the URL.

Every way of changing the lesson goes through here: a sidebar widget (`propose`), a preset, the
reset, a link or a page button (`set_lesson`). A change that cannot work keeps the last lesson and
leaves a message saying why (`error`). Widgets are views: they show the lesson's values again
whenever `version()` moves on (sidebar.py).

The address: a copied address reproduces the screen; a bad link opens with a notice. A new session
reads its link once (`config_from_url`); `write_url`, at the end of each run of the page's lesson
view (rerun.py), is the one function that writes the address: the lesson's settings that differ
from the defaults, then the page's own view (the head, the step, the mask shown...) as registered
by `view_param` during the run.
"""

from difflib import get_close_matches
from urllib.parse import quote, urlencode

import streamlit as st

from classroom.catalogue import VIEW_NAMES  # every page's own view parameter
from core import PRESETS, AttentionConfig, ConfigError, available_devices
from core.errors import quote as quoted
from core.limits import MAX_LINK_CHARS
from dashboard import navigation
from dashboard.text import plain

LESSON, VERSION = "lesson", "lesson_version"
ERROR, NOTE, LINK_NOTICE = "lesson_error", "lesson_note", "lesson_link_notice"
DEFAULT = PRESETS["default"]


def lesson() -> AttentionConfig:
    """The lesson every page shows (the last one that worked)."""
    ss = st.session_state
    if LESSON not in ss:  # a new session: the lesson its link describes
        cfg, notice = config_from_url(st.query_params.to_dict())
        extras = link_extras(list(st.query_params), st.query_params.get_all)
        notice = f"{notice} {extras}".strip()
        ss[LESSON], ss[VERSION], ss[LINK_NOTICE] = cfg, 0, notice
    return ss[LESSON]


def version() -> int:
    lesson()
    return st.session_state[VERSION]


def set_lesson(cfg: AttentionConfig):
    """Replace the whole lesson (a preset, the reset, a page button); the widgets follow."""
    lesson()
    st.session_state[LESSON] = cfg
    st.session_state[VERSION] += 1
    st.session_state.pop(ERROR, None)


def propose(note: str = "", **changes) -> bool:
    """The lesson with `changes`, if it can work; otherwise keep it and remember why not.

    `note` tells the student about a change they did not make themselves (e.g. the heads that
    follow a new d_model), so that nothing changes silently."""
    try:
        cfg = lesson().replace(**changes)
    except ConfigError as err:
        st.session_state[ERROR] = f"**{plain(err)}** The page shows the last settings that worked."
        return False
    set_lesson(cfg)
    if note:
        st.session_state[NOTE] = note
    return True


def refuse(message: str):
    """A widget value that cannot even be read (letters in a number box): keep the lesson, say why."""
    st.session_state[ERROR] = f"**{plain(message)}** The page shows the last settings that worked."


def messages():
    """Say why the last change was refused and what a change did besides (once each), and why a
    link opened something else (until the lesson moves on from the defaults it opened); a trained lesson's link
    not on the Trained heads page, which shows it itself, nor on the Present page, whose screen sets its own
    lesson (a projector window that reloads itself on a trained screen has that screen's lesson in its address,
    and once told the class about the link)."""
    ss = st.session_state
    if ss.get(ERROR):
        st.error(ss.pop(ERROR), icon="⚠️")
    if ss.get(NOTE):
        st.info(ss.pop(NOTE))
    trained_link = ss.get(LINK_NOTICE, "").startswith(TRAINED_LINK)
    if ss.get(LINK_NOTICE) and not (trained_link and (navigation.is_open(navigation.TRAINED_PAGE)
                                                      or navigation.is_open(navigation.PRESENT_PAGE))):
        st.warning(plain(ss[LINK_NOTICE]), icon="🔗")
        if trained_link:
            st.page_link(navigation.page(navigation.TRAINED_PAGE), label="Open Trained heads", icon=":material/school:")
    if ss.get(LINK_NOTICE) and lesson().key() != DEFAULT.key():
        ss[LINK_NOTICE] = ""


# -- the address ------------------------------------------------------------------------------
# `layer` is left out: only the trained model has layers, and it is not a sidebar lesson (below).
CONFIG_FIELDS = ("source", "text", "seq_len", "d_model", "num_heads", "mask", "pad_length", "window",
                 "positional", "scale", "temperature", "seed", "device", "custom_mask", "q", "k", "v")
TRAINED_LINK = ("This link is for the trained model (all-MiniLM-L6-v2), which has its own page, Trained heads: it "
                "opens there on the link's sentence and layer. The sidebar's lesson, which the other pages show, "
                "is never the trained model, so it starts from the defaults.")
_VIEWS = "url_views"  # session key: this run's view parameters, name -> value as a string
_START = "url_at_start"  # session key: the query parameters the session was opened with
_APP_VIEWS = "url_app_views"  # session key: the views drawn before the lesson's fragment (display settings)


def config_from_url(params: dict) -> tuple[AttentionConfig, str]:
    """The lesson a link describes, or the defaults and a notice saying why not.

    A trained lesson's link (`source=trained&text=...&layer=...`, as `url_params` writes one) is the
    Trained heads page's to open (it reads the text and the layer); the sidebar keeps to its sources."""
    if (n := link_chars(params)) > MAX_LINK_CHARS:
        return DEFAULT, (f"This link is {n:,} characters long; the lab's links carry at most {MAX_LINK_CHARS:,}, "
                         "so the lab opened with its defaults.")
    if params.get("source") == "trained":
        return DEFAULT, TRAINED_LINK
    values = {k: v for k, v in params.items() if k in CONFIG_FIELDS}
    try:
        return AttentionConfig.from_dict(values), ""
    except ConfigError as err:
        if err.field == "device":  # a link made on a machine with a GPU: same lesson, another device
            fallback, notice = config_from_url({**values, "device": "auto"})
            if not notice:
                return fallback, f"{err} The lesson runs on the {fallback_device()} instead."
        return DEFAULT, f"This link has a setting that cannot work, so the lab opened with its defaults. {err}"
    except (ValueError, TypeError) as err:
        return DEFAULT, f"This link has a setting that cannot work, so the lab opened with its defaults. {err}"


def link_extras(keys: list[str], values_of) -> str:
    """What a link asked for that the lab did not take as written: keys it does not know (with the
    key it may have meant) and keys given more than once (`values_of(key)`: all of that key's values)."""
    known = (*CONFIG_FIELDS, *sorted(VIEW_NAMES))
    unknown = [k for k in keys if k not in known]
    said = []
    if unknown:
        def meant(k):
            close = get_close_matches(k, known, 2)
            return f" (did you mean {' or '.join(close)}?)" if close else ""

        names = ", ".join(quoted(k) + meant(k) for k in unknown[:5])
        said.append(f"The lab does not know {len(unknown)} of this link's settings, so it ignored "
                    f"{'them' if len(unknown) > 1 else 'it'}: {names}{', …' if len(unknown) > 5 else ''}.")
    for k in [k for k in keys if k in known and len(values_of(k)) > 1][:5]:
        said.append(f"This link gives {k} {len(values_of(k))} times; the lab used the last, "
                    f"{quoted(values_of(k)[-1])}.")
    return " ".join(said)


def link_chars(params: dict) -> int:
    """How long the link's query string is, percent-encoded as the lab writes it."""
    return len(urlencode(params, doseq=True, quote_via=quote))


def fallback_device() -> str:
    return {"cuda": "GPU", "mps": "Apple GPU"}.get(available_devices()[0], "CPU")


def url_params(cfg: AttentionConfig) -> dict[str, str]:
    """Only the settings that differ from the defaults: short links, same lesson."""
    default = DEFAULT.to_dict()
    return {k: v for k, v in cfg.to_dict().items() if v != default.get(k)}


# -- the page's own view ------------------------------------------------------------------------
def start_run():
    """At the top of every full run: remember the opening link once, forget the last run's views."""
    ss = st.session_state
    if _START not in ss:
        ss[_START] = st.query_params.to_dict()
    ss[_VIEWS] = {}


def app_views_done():
    """After the parts drawn once per full run (the display settings): keep their views."""
    st.session_state[_APP_VIEWS] = dict(st.session_state.get(_VIEWS, {}))


def start_page():
    """At the top of the lesson view (rerun.py), in a full run or the view's own rerun:
    forget the page's views of its last run, keep the display settings'."""
    st.session_state[_VIEWS] = dict(st.session_state.get(_APP_VIEWS, {}))


def view_from_url(name: str, parse):
    """The value the opening link gave for the view parameter `name`, once per session; None if
    it gave none. `parse(text)` returns the value or raises ValueError (the caller says why)."""
    raw = st.session_state.get(_START, {}).pop(name, None)
    return None if raw is None else parse(raw)


def view_param(name: str, value, default):
    """Mirror one view setting in the URL for this run (left out when it is the default)."""
    if name not in VIEW_NAMES:
        raise KeyError(f"the view {name!r} is missing from classroom/catalogue.py's VIEW_NAMES")
    views = st.session_state.setdefault(_VIEWS, {})
    if value == default:
        views.pop(name, None)
    else:
        views[name] = str(value)


def keep_view(name: str, value, default):
    """Mirror a view setting of a page that holds other pages' views (the Present page's deck and screen):
    kept through the lesson views it runs, which start from the app's views (`start_page`)."""
    view_param(name, value, default)
    kept = st.session_state.setdefault(_APP_VIEWS, {})
    if value == default:
        kept.pop(name, None)
    else:
        kept[name] = str(value)


def open_view(view: dict[str, str]):
    """A page's view as if a link had opened it (`view_from_url` then reads it): a deck's page screen."""
    st.session_state.setdefault(_START, {}).update(view)


def write_url(cfg: AttentionConfig):
    """The address from the lesson and this run's views: the one place that writes it."""
    want = {**url_params(cfg), **st.session_state.get(_VIEWS, {})}
    for name in [k for k in st.query_params if k not in want]:
        del st.query_params[name]
    for name, value in want.items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value
