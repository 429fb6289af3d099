"""How the lab is shown in this session (not what the lesson is): projector mode and the weights'
colour scale, in the sidebar and the URL (`projector=1`, `weights=row`), and the page's CSS.

Every chart drawn through `ui.draw` follows them (sizing.set_look), so a new page needs nothing
of its own. The theme (light or dark) is Streamlit's own, picked in its ⋮ menu or by the link
(theme.py); charts follow it because `ui.draw` leaves their text colours to Streamlit.
"""

import streamlit as st

from dashboard import controls, theme
from dashboard.charts import sizing
from dashboard.lesson import links

PROJECTOR, WEIGHTS = "projector", "weights"
SCALES = {"fixed": "0 to 1 (compare rows)", "row": "0 to the row's largest (see its shape)"}
_NOTICE = "display_link_notice"


def _one_of(options):
    def parse(raw):
        if raw not in options:
            raise ValueError(raw)
        return options[raw]
    return parse


def _opened_with(name: str, options: dict, default):
    """The value before the widget is drawn (the look is needed first): the session's, else the
    opening link's, else `default`; a link's value that cannot be is said in the sidebar."""
    key = f"view_{name}"
    if key not in st.session_state:
        try:
            value = links.view_from_url(name, _one_of(options))
        except ValueError as err:
            st.session_state[_NOTICE] = (f"This link asks for {name} '{str(err)[:40]}', which the lab does not "
                                         "have; it shows its default instead.")
            value = None
        st.session_state[key] = default if value is None else value
    return st.session_state[key]


def projector() -> bool:
    return bool(_opened_with(PROJECTOR, {"1": True, "0": False}, False))


def by_row() -> bool:
    return _opened_with(WEIGHTS, {k: k for k in SCALES}, "fixed") == "row"


def look() -> sizing.Look:
    return sizing.PROJECTOR if projector() else sizing.ORDINARY


def page_config():
    """`st.set_page_config` for this run: in projector mode the sidebar starts collapsed."""
    st.set_page_config(page_title="attention-lab", page_icon="🔍", layout="wide",
                       initial_sidebar_state="collapsed" if projector() else "auto")
    theme.apply_css(look())


def sidebar():
    """The display settings, at the top of the sidebar (inside `with st.sidebar`)."""
    st.subheader("Display")
    if st.session_state.get(_NOTICE):
        st.warning(st.session_state.pop(_NOTICE), icon="🔗")
    controls.flag("Projector mode", PROJECTOR, help="Larger type everywhere, one chart per screen, the sidebar "
                  "folded away (open it again with the arrow at the top left).")
    controls.choice(st.radio, "Colours of the weights", list(SCALES), WEIGHTS, "fixed", format_func=SCALES.get,
                    help="0 to 1 keeps rows comparable; 0 to each row's largest shows where every row looks, "
                         "even when its weights are all small. The legend says which is on.")
    theme.control()
