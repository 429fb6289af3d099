"""Light or dark, and the page's own CSS (panel widths, projector type size).

The two themes live in .streamlit/config.toml ([theme.light], [theme.dark]); Streamlit follows
the browser's preference until the user picks one in its ⋮ menu. A link can force one with
Streamlit's own `embed_options=light_theme` / `dark_theme` (honoured on load, without
`embed=true`): the sidebar's Theme control reloads the page with that parameter, so the address
says which theme is on and opens it again. Charts follow because their text colours are left
to Streamlit (ui.draw passes `theme=None`, which still applies the theme's text and background).
"""

from functools import lru_cache
from urllib.parse import parse_qs

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard.charts import sizing

THEMES = {"browser": "Browser's", "light": "Light", "dark": "Dark"}
_PANEL_STEPS = range(200, 2401, 25)  # CSS px: the widths a panel may ask for (sizing.panel_px, rounded up)
_PANEL_KEY = "lab_w"  # a panel's key: lab_w{width}_{name}; "_" ends the width, so 300 never matches 3000
PROJECTOR_TYPE = 1.5  # the page's type in projector mode, as a multiple of Streamlit's 16 px
# Primary buttons (Ask the class, Send my answer, ...): Streamlit writes their label in white on
# the theme's primaryColor. The dark theme's accent must be light to read on its dark page
# (#FF8A94), and white on it is 2.25:1; no one accent serves both. So primary buttons keep the
# light theme's dark red in both themes: white on it is 7.1:1, and it stays the page's accent hue.
PRIMARY_BUTTON = "#A8232F"
PRIMARY_BUTTON_HOVER = "#8E1D28"


def panel_key(px: int, name: str) -> str:
    """The key of a panel (ui.panels) that stays at least `px` wide in its row: Streamlit writes
    it into the panel's class (st-key-…), which page_css picks by its start."""
    step = next((s for s in _PANEL_STEPS if s >= px), _PANEL_STEPS[-1])
    return f"{_PANEL_KEY}{step}_{name}"


@lru_cache(maxsize=4)  # one per look: built once per server, not on every rerun
def page_css(look: sizing.Look) -> str:
    """Panels side by side only while each keeps its chart's numbers legible, else one per row
    (the browser decides: it alone knows the width); larger type in projector mode."""
    rules = [f'[data-testid="stHorizontalBlock"] > div:has(> [class*="st-key-{_PANEL_KEY}{s}_"]) '
             f'{{flex: 1 1 {s}px; min-width: min({s}px, 100%);}}' for s in _PANEL_STEPS]
    primary = 'button[data-testid^="stBaseButton-primary"]:not(:disabled)'
    rules.append(f'{primary} {{background-color: {PRIMARY_BUTTON} !important; border-color: {PRIMARY_BUTTON} '
                 f'!important; color: #FFFFFF !important;}}')
    rules.append(f'{primary}:hover {{background-color: {PRIMARY_BUTTON_HOVER} !important; '
                 f'border-color: {PRIMARY_BUTTON_HOVER} !important;}}')
    if look is sizing.PROJECTOR:
        rules.append(f"html {{font-size: {16 * PROJECTOR_TYPE:.0f}px !important;}}")
    return "<style>" + "\n".join(rules) + "</style>"


def apply_css(look: sizing.Look):
    """The page's CSS for this run (a style-only st.html takes no room on the page)."""
    st.html(page_css(look))


def _from_address() -> str:
    """The theme the address forces (Streamlit's embed_options), or "browser"."""
    ctx = get_script_run_ctx()
    options = parse_qs(ctx.query_string).get("embed_options", []) if ctx else []
    for name in ("light", "dark"):
        if f"{name}_theme" in options:
            return name
    return "browser"


_RELOAD = """<script>
const url = new URL(window.location.href);
url.searchParams.delete("embed_options");
if ("{option}") url.searchParams.set("embed_options", "{option}");
window.location.replace(url.toString());
</script>"""


def control():
    """Theme: the browser's preference, light or dark. Picking one reloads the page with it in
    the address (the lesson and the view are in the address too, so nothing is lost)."""
    now = _from_address()
    if st.session_state.get("view_theme") is None:
        st.session_state["view_theme"] = now
    chosen = st.segmented_control("Theme", list(THEMES), key="view_theme", format_func=THEMES.get,
                                  help="The browser's preference (or the ⋮ menu's Settings), or always light or "
                                       "dark: then the address says so and opens the same.")
    chosen = chosen or now
    if chosen != now:
        option = "" if chosen == "browser" else f"{chosen}_theme"  # one of three fixed strings
        st.html(_RELOAD.replace("{option}", option), unsafe_allow_javascript=True)
