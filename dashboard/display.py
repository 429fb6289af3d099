"""How the lab is shown in this session (not what the lesson is): the sidebar's display settings
(projector mode and the weights' colour scale, in the URL as `projector=1`, `weights=row`; their
values are read with controls.projector() and controls.by_row()), the theme, and the page's CSS.

Every chart drawn through `draw.draw` follows the look (draw.set_look), so a new page needs
nothing of its own. The two themes live in .streamlit/config.toml ([theme.light], [theme.dark]);
Streamlit follows the browser's preference until the user picks one in its ⋮ menu. A link can
force one with Streamlit's own `embed_options=light_theme` / `dark_theme` (honoured on load,
without `embed=true`): the sidebar's Theme control reloads the page with that parameter, so the
address says which theme is on and opens it again. Charts follow because `draw.draw` leaves their
text colours to Streamlit (`theme=None` still applies the theme's text and background).
"""

import re
from functools import lru_cache
from urllib.parse import parse_qs

import streamlit as st

from dashboard import controls, navigation, serve
from dashboard.charts import draw, sizing
from dashboard.controls import PROJECTOR, SCALES, WEIGHTS
from dashboard.text import plain

PRESENT_PAGE = "app_pages/present.py"
THEMES = {"browser": "Browser's", "light": "Light", "dark": "Dark"}


def page_config():
    """`st.set_page_config` for this run: in projector mode the sidebar starts collapsed, and the
    keyboard's ← → move between a page's steps."""
    st.set_page_config(page_title="attention-lab", page_icon="🔍", layout="wide",
                       initial_sidebar_state="collapsed" if controls.projector() else "auto")
    st.html(page_css(draw.look()))  # a style-only st.html takes no room on the page
    if controls.projector() and not navigation.is_open(PRESENT_PAGE):  # a deck binds its own keys (present.py)
        st.html(_ARROW_KEYS, unsafe_allow_javascript=True)  # a constant script


# ← and → on the keyboard press the ← / → buttons of controls.tabs (one binding per browser tab, whatever
# the reruns): not while typing in a box or moving a slider, whose own arrows they are.
_ARROW_KEYS = """<script>
if (!window.labArrowKeys) {
  window.labArrowKeys = true;
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (!["ArrowLeft", "ArrowRight"].includes(e.key)) return;
    const t = e.target;
    if (t.closest && t.closest("input, textarea, select, [role=slider], [contenteditable=true]")) return;
    const end = e.key === "ArrowLeft" ? "lab_prev" : "lab_next";
    const button = document.querySelector(`[class*="${end}"] button:not(:disabled)`);
    if (button) { e.preventDefault(); button.click(); }
  });
}
</script>"""


def sidebar():
    """The display settings, in the sidebar under the room block (inside `with st.sidebar`)."""
    st.subheader("Display")
    if st.session_state.get(controls.DISPLAY_NOTICE):
        st.warning(plain(st.session_state.pop(controls.DISPLAY_NOTICE)), icon="🔗")
    controls.flag("Projector mode", PROJECTOR, shared=True,
                  help="Larger type everywhere, one chart per screen, the sidebar folded away (open it again "
                       "with the arrow at the top left).")
    controls.choice(st.radio, "Colours of the weights", list(SCALES), WEIGHTS, "fixed", shared=True,
                    format_func=SCALES.get,
                    help="0 to 1 keeps rows comparable; 0 to each row's largest shows where every row looks, "
                         "even when its weights are all small. The legend says which is on.")
    theme_control()


# -- the page's CSS -------------------------------------------------------------------------------
def _darker(color: str, by: float = 0.15) -> str:
    rgb = (int(color.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
    return "#" + "".join(f"{round(c * (1 - by)):02X}" for c in rgb)


def _px(px: int, look: sizing.Look) -> str:
    """A width in CSS: in projector mode a share of the window, as the type is (`_projector_css`)."""
    if not look.fit_height:
        return f"{px}px"
    return f"min({px}px, {100 * px / look.fit_height:.3f}vh, {100 * px / (look.fit_height * 16 / 9):.3f}vw)"


@lru_cache(maxsize=4)  # one per look: built once per server, not on every rerun
def page_css(look: sizing.Look) -> str:
    """Panels side by side only while each keeps its chart's numbers legible, else one per row
    (the browser decides: it alone knows the width); larger type in projector mode.

    Primary buttons (Ask the class, Send my answer, ...): Streamlit writes their label in white on
    the theme's primaryColor. The dark theme's accent must be light to read on its dark page, and
    white on it is hard to read; no one accent serves both. So primary buttons keep the light
    theme's accent (config.toml) in both themes: white on it passes 4.5:1 (tests/dashboard/test_projector.py)."""
    rules = [f'[data-testid="stHorizontalBlock"] > div:has(> [class*="st-key-{draw.PANEL_KEY}{s}_"]) '
             f'{{flex: 1 1 {_px(s, look)}; min-width: min({_px(s, look)}, 100%);}}' for s in draw.PANEL_STEPS]
    accent = st.get_option("theme.light.primaryColor")
    if accent:
        primary = 'button[data-testid^="stBaseButton-primary"]:not(:disabled)'
        rules.append(f'{primary} {{background-color: {accent} !important; border-color: {accent} '
                     f'!important; color: #FFFFFF !important;}}')
        rules.append(f'{primary}:hover {{background-color: {_darker(accent)} !important; '
                     f'border-color: {_darker(accent)} !important;}}')
    if look.scale != 1:
        rules += _projector_css(look)
    return "<style>" + "\n".join(rules) + "</style>"


def _projector_css(look: sizing.Look) -> list[str]:
    """Larger type (Streamlit's is 16 px), as large a share of the window at every size (a projected
    picture is as large on the wall at 1280×720 as at 1920×1080; sizing.FIT does the same for the
    charts), never below Streamlit's own. Less empty space above the title, a smaller title, and
    captions in the text's own colour: they carry content a class must read from the back (7:1)."""
    top = 16 * look.scale
    share = f"min({100 * top / look.fit_height:.4f}vh, {100 * top / (look.fit_height * 16 / 9):.4f}vw)"
    return [f"html {{font-size: clamp(16px, {share}, {top:.0f}px) !important;}}",
            ('[data-testid="stMainBlockContainer"] {padding-top: 2.75rem !important; padding-left: 2rem !important; '
             'padding-right: 2rem !important;}'),
            '[data-testid="stHeader"] {background: transparent !important;}',  # over the page's top margin
            '[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script) {display: none;}',  # ← →
            '[data-testid="stMain"] h1 {font-size: 1.75rem !important; padding-top: 0 !important;}',
            '[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] * {color: inherit !important;}',
            '[data-testid="stCaptionContainer"] {opacity: 1 !important;}']


# -- the theme ------------------------------------------------------------------------------------
def _theme_from_address() -> str:
    """The theme the address forces (Streamlit's embed_options), or "browser"."""
    options = parse_qs(serve.opening_query_string()).get("embed_options", [])
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


_COOKIE_TEXT = re.compile(r"[A-Za-z0-9_-]{1,64}")  # names and values a cookie script may hold: no quote, no ;


def set_cookies(values: dict, hours: float):
    """Set (a value) or delete (None) cookies of this browser for the whole lab, SameSite=Strict. Names
    and values are letters, digits, - and _ only (ValueError otherwise): nothing else reaches the script."""
    parts = []
    for name, value in values.items():
        if not _COOKIE_TEXT.fullmatch(name) or not (value is None or _COOKIE_TEXT.fullmatch(value)):
            raise ValueError("a cookie's name and value are letters, digits, - and _ only")
        age = int(hours * 3600) if value else 0
        parts.append(f"document.cookie = '{name}={value or ''}; path=/; max-age={age}; SameSite=Strict';")
    st.html(f"<script>{' '.join(parts)}</script>", unsafe_allow_javascript=True)


def theme_control():
    """Theme: the browser's preference, light or dark. Picking one reloads the page with it in
    the address (the lesson and the view are in the address too, so nothing is lost)."""
    now = _theme_from_address()
    key = controls.state_key("theme", shared=True)
    if st.session_state.get(key) is None:
        st.session_state[key] = now
    chosen = st.segmented_control("Theme", list(THEMES), key=key, format_func=THEMES.get,
                                  help="The browser's preference (or the ⋮ menu's Settings), or always light or "
                                       "dark: then the address says so and opens the same.")
    chosen = chosen or now
    if chosen != now:
        option = "" if chosen == "browser" else f"{chosen}_theme"  # one of three fixed strings
        st.html(_RELOAD.replace("{option}", option), unsafe_allow_javascript=True)
