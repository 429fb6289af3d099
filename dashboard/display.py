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

import json
import re
from functools import lru_cache
from urllib.parse import parse_qs

import streamlit as st

from dashboard import controls, navigation, serve
from dashboard.charts import draw, sizing
from dashboard.controls import CAPTIONS, PROJECTOR, SCALES, WEIGHTS
from dashboard.text import plain

THEMES = {"browser": "Browser's", "light": "Light", "dark": "Dark"}


def page_config():
    """`st.set_page_config` for this run: in projector mode the sidebar starts collapsed, and the
    keyboard's ← → move between a page's steps."""
    st.set_page_config(page_title="attention-lab", page_icon="🔍", layout="wide",
                       initial_sidebar_state="collapsed" if controls.projector() else "auto")
    st.html(page_css(draw.look()))  # a style-only st.html takes no room on the page
    st.html(_PHONE_SIDEBAR, unsafe_allow_javascript=True)  # a constant script
    if controls.projector() and not navigation.is_open(navigation.PRESENT_PAGE):  # a deck binds its own keys
        st.html(_ARROW_KEYS, unsafe_allow_javascript=True)  # a constant script


# On a phone the open sidebar covers most of the screen, and Streamlit leaves it open after a tap on a page
# link (in it, or the room's question bar on the page): such a tap closes it, as the page it opens is the
# point (one binding per browser tab). Wider screens keep the sidebar beside the page, as it was.
_PHONE_SIDEBAR = """<script>
if (!window.labPhoneSidebar) {
  window.labPhoneSidebar = true;
  document.addEventListener("click", (e) => {
    if (!window.matchMedia("(max-width: 640px)").matches || !e.target.closest) return;
    if (!e.target.closest('[data-testid="stSidebarNavLink"], [data-testid="stPageLink-NavLink"]')) return;
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (sidebar && close && sidebar.getAttribute("data-collapsed") === "false") setTimeout(() => close.click(), 0);
  }, true);
}
</script>"""


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


# The page's top in view: its scroller (Streamlit's main area; the document, where that does not scroll) at 0.
_TO_TOP = """<script>
for (const scroller of [document.querySelector('[data-testid="stMain"]'), document.scrollingElement]) {
  if (scroller) scroller.scrollTop = 0;
}
</script>"""


# The projector shows the slide and nothing of the software: no Streamlit menu, no chart toolbars or Export
# menus; a window following a presenter (who drives it) not its switches, a page's step arrows nor the sidebar's
# arrow either. Constant CSS, in that window's page only (a style-only st.html takes no room).
_QUIET = ('[data-testid="stMainMenu"], [data-testid="stElementToolbar"], '
          '[data-testid="stMain"] [data-testid="stPopover"] {display: none !important;}')
_QUIET_FOLLOWING = ('[data-testid="stExpandSidebarButton"], [data-testid="stMain"] [data-testid="stCheckbox"], '
                    '[data-testid="stMain"] [class*="_lab_prev"], [data-testid="stMain"] [class*="_lab_next"] '
                    '{display: none !important;}')


# A projector's charts are sized to its window when drawn (Vega reads the window's size once: charts/sizing.py), so
# a window moved to the projector and made full screen, or resized, would keep the sizes of the window it was: it
# draws itself again, from its address (it keeps the screen, and a following window rejoins its room), once the
# size has settled. One listener per window, whatever the reruns.
_REDRAW_ON_RESIZE = """<script>(() => {
  const w = window.parent || window;
  if (w.__labRedrawOnResize) return;
  w.__labRedrawOnResize = true;
  const drawn = [w.innerWidth, w.innerHeight];
  let settle = null;
  w.addEventListener('resize', () => {
    clearTimeout(settle);
    settle = setTimeout(() => {
      if (Math.abs(w.innerWidth - drawn[0]) > 32 || Math.abs(w.innerHeight - drawn[1]) > 32) w.location.reload();
    }, 600);
  });
})();</script>"""


def quiet_projector(following: bool, redraw: bool = True):
    """The projector's window without the software around its slide (above); `following`: a presenter drives it.
    It draws itself again when its window's size changes (above), if `redraw`."""
    st.html(f"<style>{_QUIET}{_QUIET_FOLLOWING if following else ''}</style>")
    if redraw:
        st.html(_REDRAW_ON_RESIZE, unsafe_allow_javascript=True)


# A row of buttons is a radio group: a clicked one keeps the focus, and the next → (or a clicker's PageDown) would
# move the pick along the row instead of stepping the deck (a clicked switch kept it too, and → did nothing). So a
# click inside the box gives the focus back to the page at once (one listener per window and box).
_GIVE_KEYS_BACK = """<script>
(() => {{
  const box = {box};
  window.labGivesKeysBack = window.labGivesKeysBack || new Set();
  if (window.labGivesKeysBack.has(box)) return;
  window.labGivesKeysBack.add(box);
  document.addEventListener("click", (e) => {{
    if (e.target.closest && e.target.closest(box)) setTimeout(() => document.activeElement.blur(), 0);
  }}, true);
}})();
</script>"""
# the boxes that give the keys back: constants, never a visitor's
_BOXES = frozenset({".st-key-present_steer", ".st-key-present_picture_switches"})


def give_keys_back(box: str):
    """A click inside `box` (a CSS selector of _BOXES) leaves no focus behind: the deck's keys step again."""
    if box not in _BOXES:
        raise ValueError(f"not a box that gives the keys back: {box!r}")
    st.html(_GIVE_KEYS_BACK.format(box=json.dumps(box)), unsafe_allow_javascript=True)


def scroll_to_top():
    """Scroll the page to its top as this run draws it, for a view that replaces a longer one: Streamlit keeps
    the page's scroll across runs (no public API sets it). Call it in the run of that change only: its script
    runs each time its element is drawn, and scrolls to the same place each time."""
    st.html(_TO_TOP, unsafe_allow_javascript=True)  # a constant script


def sidebar():
    """The display settings, in the sidebar under the room block (inside `with st.sidebar`)."""
    st.subheader("Display", anchor=False)
    if st.session_state.get(controls.DISPLAY_NOTICE):
        st.warning(plain(st.session_state.pop(controls.DISPLAY_NOTICE)), icon="🔗")
    controls.flag("Projector mode", PROJECTOR, shared=True,
                  help="Larger type everywhere, one chart per screen, the sidebar folded away (open it again "
                       "with the arrow at the top left).")
    controls.choice(st.radio, "Colours of the weights", list(SCALES), WEIGHTS, "fixed", shared=True,
                    format_func=SCALES.get,
                    help="0 to 1 keeps rows comparable; 0 to each row's largest shows where every row looks, "
                         "even when its weights are all small. The legend says which is on.")
    controls.flag("Captions under videos", CAPTIONS, default=True, shared=True,
                  help="The narration's own words beneath every narrated video, in time with its voice (the "
                       "projector's too). Off hides them; a class with a deaf or hard-of-hearing student needs "
                       "them on.")
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


PANEL_WIDTH = "--lab-panel"  # a row of panels' width per panel (page_css)


@lru_cache(maxsize=4)  # one per look: built once per server, not on every rerun
def page_css(look: sizing.Look) -> str:
    """Panels side by side only while each keeps its chart's numbers legible, else one per row
    (the browser decides: it alone knows the width); larger type in projector mode.

    Primary buttons (Ask the class, Send my answer, ...): Streamlit writes their label in white on
    the theme's primaryColor. The dark theme's accent must be light to read on its dark page, and
    white on it is hard to read; no one accent serves both. So primary buttons keep the light
    theme's accent (config.toml) in both themes: white on it passes 4.5:1 (tests/dashboard/test_projector.py)."""
    # The row's key names the width (draw.panels); its panels are the row's children. No `:has()`: with
    # one per width, every change of a class anywhere made the browser test them again (docs/performance.md).
    rules = [f'.stHorizontalBlock[class*="st-key-{draw.PANEL_KEY}{s}_"] {{{PANEL_WIDTH}: {_px(s, look)};}}'
             for s in draw.PANEL_STEPS]
    rules.append(f'.stHorizontalBlock[class*="st-key-{draw.PANEL_KEY}"] > [data-testid="stLayoutWrapper"] '
                 f'{{flex: 1 1 var({PANEL_WIDTH}); min-width: min(var({PANEL_WIDTH}), 100%);}}')
    accent = st.get_option("theme.light.primaryColor")
    if accent:
        primary = 'button[data-testid^="stBaseButton-primary"]:not(:disabled)'
        rules.append(f'{primary} {{background-color: {accent} !important; border-color: {accent} '
                     f'!important; color: #FFFFFF !important;}}')
        rules.append(f'{primary}:hover {{background-color: {_darker(accent)} !important; '
                     f'border-color: {_darker(accent)} !important;}}')
    # A heatmap's numbers let the pointer through to their cell, whose tooltip shows (heatmaps._numbers)
    rules.append('[data-testid="stVegaLiteChart"] .mark-text.role-mark text {pointer-events: none;}')
    # a script's element (the sidebar's closing on a phone, ← → in projector mode) takes no room, nor a gap
    rules.append('[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script) {display: none;}')
    if look.scale != 1:
        rules += _projector_css(look)
    rules += QUESTION_BAR_CSS + PRESENT_CSS
    return "<style>" + "\n".join(rules) + PHONE_CSS + "</style>"


# The presenter's pictures' height at most (px, % of the window's): the notes and a question's answers below them
# stay above a laptop's fold
PICTURE_BOUNDS = {"now": (480, 37), "next": (300, 28)}
# A presented deck (dashboard/present/): the quiet "n / N" marker in the bottom corner, and the buttons
# that only bind PageDown, PageUp and Space hidden. Keyed classes: no other page has these elements.
PRESENT_CSS = [
    "div.st-key-present_marker {position: fixed !important; right: 1.5rem !important; left: auto !important; "
    "bottom: 0.4rem !important; width: auto !important; z-index: 999990; opacity: 0.75;}",
    "div.st-key-present_marker p {font-size: 1rem;}",
    'div[class*="st-key-present_key_"] {display: none !important;}',
    # a question's choices, larger than the page's text: the class reads them from the back of the room
    "div.st-key-present_choices p {font-size: 1.35rem;}",
    # where to answer, beside the QR code: as large as the choices (it was the page's text, small from the back)
    "div.st-key-present_join p {font-size: 1.35rem;}",
    # a text slide's text, large (the projector's rem is already scaled to the window)
    "div.st-key-present_text p, div.st-key-present_text li {font-size: 1.6rem; line-height: 1.45;}",
    # the presenter's pictures (present/presenter.py): each frame as wide as its column, 16:9, at most `px` and
    # `vh`% of the window high; CSS follows the column both ways, where st.iframe(height="content") never shrank
    *(f".st-key-present_preview_{which} iframe {{height: auto !important; aspect-ratio: 16 / 9; max-height: "
      f"min({px}px, {vh}vh);}} .st-key-present_preview_{which} [data-testid=stElementContainer]:has(> iframe) "
      "{flex: 0 0 auto !important; height: auto !important;}" for which, (px, vh) in PICTURE_BOUNDS.items()),
    # an image slide's picture: the window's width at most, and never below its bottom edge
    "div.st-key-present_image img {max-height: 72vh; object-fit: contain;}",
    # the presenter blanked the projector (B or .): black over the whole window; its marker polls on beneath
    "div.st-key-present_blank {position: fixed !important; inset: 0 !important; background: #000 !important; "
    "z-index: 999999 !important;}",
]


QUESTION_BAR = "room_question_bar"  # the key of a room's question bar (room/student.py)
# A room's question bar, fixed at the bottom of the screen on every page but the Room page, above an open
# sidebar (a tap on it closes the sidebar: _PHONE_SIDEBAR); the page and the sidebar keep room under their
# end. Students only: a teacher's (projected) screen never has one.
QUESTION_BAR_CSS = [
    f'.st-key-{QUESTION_BAR} {{position: fixed; bottom: 0; left: 0; right: 0; z-index: 1000200; padding: 0.5rem 1rem; '
    'background: #FFF4CC; box-shadow: 0 -2px 8px rgba(0, 0, 0, 0.25);}',
    f'.st-key-{QUESTION_BAR} a {{color: #1F1F1F !important; font-weight: 600;}}',  # on the bar's light yellow
    f'[data-testid="stMain"]:has(.st-key-{QUESTION_BAR}) [data-testid="stMainBlockContainer"] '
    '{padding-bottom: 6rem !important;}',
    # its fragment's place in the page's column: no gap above the title
    f'[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] > div:has(.st-key-{QUESTION_BAR}) '
    '{margin-bottom: -1rem;}',
    f'body:has(.st-key-{QUESTION_BAR}) [data-testid="stSidebarContent"] {{padding-bottom: 6rem;}}',
]

# Two charts too dense for a phone's 358 px, the Trained heads' 6 × 12 thumbnails (23 px each, a thumbnail is
# a tap target) and Watch it learn's open head (48 × 48 cells, 6 px a row), have phone-sized versions, drawn
# where the browser says it is a phone (`phone_view`). Where it does not (a narrow window), or the switch is
# off, the full charts are drawn at a width that keeps them legible (thumbnails 47 px, rows 12 px) in a box of
# their own that scrolls sideways; the page does not. Only the browser knows the screen's width, so CSS picks
# it. Their keys are those the pages give the full grid and the open head's box (trained_heads.grid,
# watch_learn.open_head).
# A phone (a window at most 640 px wide; a projector, or a laptop's window, is wider, and keeps its look):
# every target a student taps at least 44 px high (Apple's and WCAG 2.5.5's size), radio rows apart, and
# text boxes' type at 16 px, below which iOS zooms into a box on focus. Help icons keep their size and
# their touch area grows around them (::after), so that the labels beside them do not move.
PHONE_CSS = """
@media (max-width: 640px) {
  button[data-testid^="stBaseButton"], [data-testid="stButtonGroup"] button[data-variant],
  [data-testid="stPopover"] button, [data-testid="stExpandSidebarButton"],
  [data-testid="stSidebarCollapseButton"] button, [data-testid="stSidebarNavLink"],
  [data-testid="stPageLink-NavLink"], [data-testid="stExpander"] summary, [data-testid="stCheckbox"] label,
  [data-testid="stRadioOption"], [data-baseweb="select"] > div,
  [data-testid="stTextInputRootElement"], [data-testid="stNumberInputContainer"] {
    min-height: 44px !important; box-sizing: border-box;}
  [data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapseButton"] button,
  [data-testid="stMainMenu"] button {min-width: 44px !important; min-height: 44px !important;}
  [data-testid="stSidebarNavLink"], [data-testid="stPageLink-NavLink"], [data-testid="stCheckbox"] label,
  [data-testid="stRadioOption"], [data-testid="stExpander"] summary {
    display: flex; align-items: center;}
  [data-testid="stRadioOption"] {margin-bottom: 0.5rem !important;}
  [data-testid="stButtonGroup"] > div {gap: 0.5rem;}
  input, textarea, [data-baseweb="select"] input, [data-baseweb="select"] [value] {font-size: 16px !important;}
  .stElementContainer[class*="st-key-trained_grid_"], .st-key-film_open_head_box {
    overflow-x: auto; overflow-y: hidden;}
  .stElementContainer[class*="st-key-trained_grid_"] > [data-testid="stFullScreenFrame"] {min-width: 680px;}
  .st-key-film_open_head_box [data-testid="stFullScreenFrame"] {min-width: 640px;}
  .katex-display {overflow-x: auto; overflow-y: hidden; padding-bottom: 4px;}
  button[aria-label^="Help for"] {position: relative;}
  button[aria-label^="Help for"]::after {content: ""; position: absolute; inset: -14px;}
}"""


def _projector_css(look: sizing.Look) -> list[str]:
    """Larger type (Streamlit's is 16 px), as large a share of the window at every size (a projected
    picture is as large on the wall at 1280×720 as at 1920×1080; sizing.FIT does the same for the
    charts), never below Streamlit's own. Less empty space above the title, a smaller title, and
    captions in the text's own colour: they carry content a class must read from the back (7:1)."""
    top = 16 * look.scale
    share = f"min({100 * top / look.fit_height:.4f}vh, {100 * top / (look.fit_height * 16 / 9):.4f}vw)"
    return [f"html {{font-size: clamp(16px, {share}, {top:.0f}px) !important;}}",
            ('[data-testid="stMainBlockContainer"] {padding-top: 1.75rem !important; padding-left: 2rem !important; '
             'padding-right: 2rem !important;}'),
            '[data-testid="stHeader"] {background: transparent !important;}',  # over the page's top margin
            '[data-testid="stMain"] h1 {font-size: 1.75rem !important; padding-top: 0 !important;}',
            '[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] * {color: inherit !important;}',
            # a caption, a control's label and an expander's title as large as the text (24 px at 1080p)
            '[data-testid="stMain"] [data-testid="stCaptionContainer"], [data-testid="stMain"] [data-testid='
            '"stWidgetLabel"] p, [data-testid="stMain"] [data-testid="stExpander"] summary p, [data-testid="stMain"] '
            '[data-testid="stButtonGroup"] button p, [data-testid="stMain"] [data-testid="stPageLink"] p, '
            '[data-testid="stMain"] [data-testid^="stSliderT"], [data-testid="stMain"] [data-testid="stButton"] p '
            '{font-size: 1rem !important;}',
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


# The presenter view's ".", "?" and R (dashboard/present/lectern.py): each presses its hidden button. Streamlit's
# shortcuts take letters and digits only, and never R. A constant script, here with the page's other raw HTML.
_PRESENTER_KEYS = """<script>(() => {
  const w = window.parent || window;
  if (w.__labPresenterKeys) return;
  w.__labPresenterKeys = true;
  const pressed = {'.': 'present_key_presenter_B', '?': 'present_key_presenter_help',
                   'r': 'present_key_presenter_reveal', 'R': 'present_key_presenter_reveal'};
  w.document.addEventListener('keydown', (e) => {
    const t = e.target;
    const typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
    if (e.ctrlKey || e.metaKey || e.altKey || typing) return;
    const key = pressed[e.key];
    const button = key && w.document.querySelector('.st-key-' + key + ' button');
    if (!button || button.disabled) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    button.click();
  }, true);
})();</script>"""


def presenter_keys():
    """The presenter view's ".", "?" and R (a constant script; once per page, whatever the reruns)."""
    st.html(_PRESENTER_KEYS, unsafe_allow_javascript=True)
