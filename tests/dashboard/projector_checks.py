"""What the projector tests check in Debian's Chromium (test_projector.py, test_projector_slides.py,
test_display.py): the pages, how to wait for a page, the charts' fit and numbers, contrast, axe-core."""

import contextlib
import re

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from classroom.catalogue import PAGES
from tests.conftest import ROOT, close_clean
from tests.waits import charts_drawn

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SIZES = [(1280, 720, 1), (1920, 1080, 1), (960, 540, 2)]
SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
BACKGROUND = "getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor"
NO_CHARTS = {"lecture": "renders the lecture videos when opened (the videos' half of issue 11)"}
# Pages checked here that draw no chart until a class is running (test_room_browser draws them), or
# until a run is trained (test_watch_learn_browser trains one): their text, theme and WCAG rules
# are checked all the same.
FORMS_ONLY = {"room", "watch-it-learn", "present"}


def app_pages() -> list[str]:
    """The url paths of the app's pages (classroom/catalogue.py's PAGES)."""
    paths = ["" if page.default else page.url  # the default page lives at /
             for page in PAGES if page.url not in NO_CHARTS]
    assert len(paths) >= 7, paths
    return paths


def _rgb(colour: str) -> tuple[float, ...]:
    if colour.startswith("#"):
        colour = colour.lstrip("#")
        colour = "".join(c * 2 for c in colour) if len(colour) == 3 else colour
        return tuple(int(colour[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return tuple(float(x) / 255 for x in re.findall(r"[\d.]+", colour)[:3])


def theme_background(page, scheme: str, where: str) -> str:
    """The app's background colour, checked to be the theme's: light (over 10:1 against black) or dark."""
    background = page.evaluate(BACKGROUND)
    assert (contrast(background, "#000") > 10) == (scheme == "light"), f"{where}: theme {background}"
    return background


def contrast(a: str, b: str) -> float:
    """WCAG 2.1's contrast ratio of two colours (#hex or rgb())."""
    def lum(colour):
        c = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in _rgb(colour)]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


MEASURE = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].map(chart => {
    const drawn = chart.querySelector('svg.marks, canvas.marks');
    const holder = chart.closest('[data-testid=stVerticalBlock]');
    const cells = [...chart.querySelectorAll('g.mark-rect.role-mark path')].map(p => ({box: box(p),
        fill: p.getAttribute('fill')}));
    const texts = [...chart.querySelectorAll('g.mark-text.role-mark text')].filter(t => t.textContent.trim())
        .map(t => ({box: box(t), fill: t.getAttribute('fill'), size: parseFloat(t.getAttribute('font-size')),
                    text: t.textContent}));
    return {chart: box(drawn || chart), holder: box(holder), svg: !!chart.querySelector('svg.marks'),
            cells, texts};
  });
}"""


# Every heatmap on the page prints `cells` numbers (Vega adds them once a cell is large enough to hold one).
ALL_NUMBERS = """cells => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].every(chart =>
  [...chart.querySelectorAll('g.mark-text.role-mark text')].filter(t => t.textContent.trim()).length >= cells)"""


def settle(page, url: str, charts: bool = True):
    page.goto(url)
    loaded(page.context).add(url.split("/")[2])
    page.wait_for_selector(SETTLED, timeout=60_000)
    if not charts:
        page.wait_for_selector("[data-testid=stButton] button", timeout=30_000)
        return
    page.wait_for_selector("[data-testid=stVegaLiteChart] svg, [data-testid=stVegaLiteChart] canvas", timeout=60_000)
    drawn(page)


def loaded(context) -> set[str]:
    """The servers (host:port) whose front end a page of this browser context has loaded: their scripts
    come from its cache."""
    if not hasattr(context, "lab_loaded"):
        context.lab_loaded = set()
    return context.lab_loaded


def drawn(page):
    """Wait until every chart on the page has drawn its marks, and for Vega's resize to its container's width.
    (The waits here poll every 100 ms, not on every animation frame, Playwright's default, which keeps
    Chromium drawing.)"""
    charts_drawn(page)


def open_by_sidebar(page, server: str, path: str, charts: bool = True):
    """Open the page `path` as a student does after the first: by its link in the sidebar's navigation
    (no new page load: the same front end, a new script run); then as `settle` waits."""
    title = page.locator("h1").first.inner_text()
    page.locator(f"[data-testid=stSidebarNav] a[href='{server}/{path}']").first.click()
    page.wait_for_function("t => (document.querySelector('h1') || {}).innerText !== t", arg=title, polling=100,
                           timeout=30_000)
    page.wait_for_selector(SETTLED, timeout=60_000)
    if charts:
        drawn(page)


def check_charts(charts: list[dict], min_font: float, where: str) -> int:
    """Each chart inside its container, none overlapping another; returns how many numbers it checked."""
    numbers = 0
    for i, c in enumerate(charts):
        left, top, right, bottom = c["chart"]
        assert left >= c["holder"][0] - 1 and right <= c["holder"][2] + 1, f"{where}: chart {i} overflows {c}"
        for j, other in enumerate(charts[:i]):
            o = other["chart"]
            overlap = min(right, o[2]) - max(left, o[0]), min(bottom, o[3]) - max(top, o[1])
            assert min(overlap) <= 1, f"{where}: charts {j} and {i} overlap"
        for t in c["texts"]:
            x, y = (t["box"][0] + t["box"][2]) / 2, (t["box"][1] + t["box"][3]) / 2
            under = [p for p in c["cells"] if p["box"][0] <= x <= p["box"][2] and p["box"][1] <= y <= p["box"][3]]
            assert under, f"{where}: number {t['text']} is over no cell"
            assert t["size"] >= min_font, f"{where}: {t['text']} at {t['size']} px"
            ratio = contrast(t["fill"], under[-1]["fill"])
            assert ratio >= 4.5, f"{where}: {t['text']} {t['fill']} on {under[-1]['fill']}: {ratio:.2f}"
            numbers += 1
    return numbers


@contextlib.contextmanager
def window(context, width: int, height: int, scheme: str = "light"):
    """A new page (a new Streamlit session) of that size and colour scheme in `context`, the tests'
    shared one (tests/conftest.py's `clean_context`): the lab's front end comes from its cache."""
    page = context.new_page()
    try:
        page.set_viewport_size({"width": width, "height": height})
        page.emulate_media(color_scheme=scheme)
        yield page
    finally:
        close_clean(page)


def press(page, key: str, name: str):
    """The teacher's ← or → in projector mode: the address's `name` (the page's step) changes (its
    default leaves the address), the run ends and its charts are drawn."""
    at = "n => new URL(location.href).searchParams.get(n)"
    before = page.evaluate(at, name)
    page.keyboard.press(key)
    page.wait_for_function(f"([n, before]) => ({at})(n) !== before", arg=[name, before], polling=100, timeout=30_000)
    page.wait_for_selector(SETTLED, timeout=60_000)
    drawn(page)


def axe_violations(page) -> list[str]:
    if not page.evaluate("() => typeof axe !== 'undefined'"):  # a page reached from the sidebar keeps it
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => (await axe.run(document, {runOnly: {type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})).violations.map(v =>
        v.id + ': ' + v.nodes.map(n => n.failureSummary.split('\\n')[1] + ' @ ' + n.target.join(' ')).join(' | '))""")
    return found



class RunEndHeld:
    """The page's websocket to its server, through Playwright (set before the page loads): while `holding`,
    the message that ends a script run (`script_finished`) is kept from the page until `release()`. The page
    then draws the run's elements above the previous run's, which it clears only at that message: as on a
    loaded server, whose run ends after the browser has drawn the new elements."""

    def __init__(self, page):
        self.holding, self.held, self._socket = False, [], None
        page.route_web_socket(re.compile(r"/_stcore/stream$"), self._route)

    def _route(self, socket):
        self._socket, server = socket, socket.connect_to_server()
        server.on_message(self._from_server)  # the page's messages go on to the server as they are

    def _from_server(self, message):
        if self.holding and isinstance(message, bytes) and \
                ForwardMsg.FromString(message).WhichOneof("type") == "script_finished":
            self.held.append(message)
            return
        self._socket.send(message)

    def release(self):
        self.holding = False
        for message in self.held:
            self._socket.send(message)
        self.held.clear()
