"""The lesson's one home: the `AttentionConfig` in `st.session_state["lesson"]`.

Every way of changing the lesson goes through here: a sidebar widget (`propose`), a preset, the
reset, a link or a page button (`set_lesson`). A change that cannot work keeps the last lesson and
leaves a message saying why (`error`). Widgets are views: they show the lesson's values again
whenever `version()` moves on (sidebar.py). The URL is written from the lesson by
`links.write_url`, at the end of each run of the page's lesson view (rerun.py).
"""

import streamlit as st

from core import AttentionConfig, ConfigError
from dashboard import navigation
from dashboard.lesson.links import DEFAULT, TRAINED_LINK, config_from_url, link_extras
from dashboard.text import plain

LESSON, VERSION = "lesson", "lesson_version"
ERROR, NOTE, LINK_NOTICE = "lesson_error", "lesson_note", "lesson_link_notice"


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
    link opened something else (until the lesson moves on from the defaults it opened); not on the
    Trained heads page, which shows a trained lesson's link itself."""
    ss = st.session_state
    if ss.get(ERROR):
        st.error(ss.pop(ERROR), icon="⚠️")
    if ss.get(NOTE):
        st.info(ss.pop(NOTE))
    trained_link = ss.get(LINK_NOTICE, "").startswith(TRAINED_LINK)
    if ss.get(LINK_NOTICE) and not (trained_link and navigation.is_open(navigation.TRAINED_PAGE)):
        st.warning(plain(ss[LINK_NOTICE]), icon="🔗")
        if trained_link:
            st.page_link(navigation.page(navigation.TRAINED_PAGE), label="Open Trained heads", icon=":material/school:")
    if ss.get(LINK_NOTICE) and lesson().key() != DEFAULT.key():
        ss[LINK_NOTICE] = ""
