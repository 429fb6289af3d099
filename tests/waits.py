"""Waits on what a page shows, for the browser tests: charts drawn and still, an element still, a
reconnect after the server went away; and a page's websocket frames, to say why a wait failed."""

import contextlib
import itertools
import time

# Waits on what the page shows, for the browser tests. Each polls every 100 ms: Playwright's default,
# every animation frame, keeps Chromium drawing and costs CPU. A wait that compares two polls keeps the
# earlier one under a token of its own, so that a wait never compares with what an earlier one saw.
_WAIT_TOKENS = itertools.count()

# Every Vega chart on the page (one at least) holds its marks (an SVG, or a Canvas for the large
# heatmaps), and their signature (place and size; the SVG's number of paths, the Canvas's pixel size)
# is the one of the poll before: drawn, and Vega's resize to its container's width is over.
_CHARTS_STILL = """token => {
  const marks = [...document.querySelectorAll('[data-testid=stVegaLiteChart]')]
      .map(chart => chart.querySelector('svg.marks, canvas.marks'));
  const drawn = marks.length > 0 && marks.every(m => m);
  const signature = drawn && JSON.stringify(marks.map(m => {
    const r = m.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height,
            m instanceof HTMLCanvasElement ? [m.width, m.height] : m.querySelectorAll('path').length];
  }));
  const before = window.__labCharts || {};
  window.__labCharts = {token, signature};
  return drawn && before.token === token && before.signature === signature;
}"""

# The element's box is the one of the poll before, and not empty: it has stopped moving (a popover
# that slides open, a scroll that ends, widgets above it that grew).
_STILL = """([element, token]) => {
  const r = element.getBoundingClientRect();
  const box = [r.left, r.top, r.width, r.height].join();
  const before = element.__labBox || {};
  element.__labBox = {token, box};
  return r.width > 0 && r.height > 0 && before.token === token && before.box === box;
}"""

CONNECTING = "[data-testid=stConnectionStatus]"  # Streamlit's "Connecting" in the header, while it has no server


def charts_drawn(page, timeout: float = 30_000):
    """Wait until every Vega chart on the page has drawn its marks and they stay as they are for a poll."""
    page.wait_for_function(_CHARTS_STILL, arg=next(_WAIT_TOKENS), polling=100, timeout=timeout)


def still(locator, timeout: float = 30_000) -> dict:
    """Wait until the element has stopped moving; returns its bounding box."""
    element = locator.element_handle(timeout=timeout)
    locator.page.wait_for_function(_STILL, arg=[element, next(_WAIT_TOKENS)], polling=100, timeout=timeout)
    return locator.bounding_box()


@contextlib.contextmanager
def reconnected(page, timeout: float = 60_000):
    """Around what cuts the page off its server (the process killed, or restarted): afterwards, the
    page has opened a new websocket and Streamlit counts itself connected again (its "Connecting"
    status gone), so that a click now reaches a server."""
    with page.expect_websocket(timeout=timeout):
        yield
    page.wait_for_selector(CONNECTING, state="detached", timeout=timeout)


class Frames:
    """The websocket frames a page sends and receives, and when (attach before the page opens). On a failed
    wait, `since(t)` says whether the page still asked its server for runs (a timer's ticks, a click) and
    heard back: which side stopped."""

    def __init__(self, page):
        self.log: list[tuple[float, str]] = []
        page.on("websocket", self._socket)

    def _socket(self, socket):
        socket.on("framesent", lambda _: self.log.append((time.monotonic(), "sent")))
        socket.on("framereceived", lambda _: self.log.append((time.monotonic(), "received")))

    def since(self, start: float) -> str:
        def at(way):
            return [round(t - start, 1) for t, w in self.log if w == way and t >= start]

        sent, got = at("sent"), at("received")
        return f"sent {len(sent)} frames (at {sent[:30]} s), received {len(got)} (the last at {got[-1:]} s)"
