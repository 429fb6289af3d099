"""How long a step of a presented deck takes to reach the projector (issue 41, part 2; goal: at most 1 s median).

One lab process (as `make run` serves it, on loopback), one Chromium with two windows at 1920×1080, as a
teacher's laptop has them: the presenter view, which opens a room, and the projector's window it opens.
Each press of → on the presenter is timed until the projector's marker shows the next screen's number
and its run has finished (Streamlit's script state back to "not running"): the presenter's run, the room
(`set_lesson` with the deck's place), the projector's poll (every 0.5 s: half of that on average is the
wait), and the projector's full run of its new screen, charts sent. For reference, the same press to
the presenter's own run finishing is measured in the same run.

The default deck from `--start` for `--presses` screens (its page, scene and question screens alike).
The presenter's pictures of this screen and the next (each a small window like the projector's) are on, as a
teacher finds them; `--no-pictures` switches them off. With `--hall`, the same through a lecture hall
(`python -m hall`: 2 lab processes behind HAProxy, the room in Redis), as a department server serves it.

    python benchmarks/present_bench.py [--presses 15] [--start 2] [--hall]
"""

import argparse
import contextlib
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.lab_server import start_streamlit, stop  # noqa: E402

CHROMIUM = next((p for p in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if Path(p).exists()),
                "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
MARKER = "[class*='st-key-present_marker'] [data-testid=stCaptionContainer]"
SHOWS = "([sel, want]) => [...document.querySelectorAll(sel)].some(e => e.innerText.trim() == want)"


@contextlib.contextmanager
def served(hall: bool):
    """The lab's address: one process as `make run` serves it, or a hall of 2 behind HAProxy."""
    if hall:
        from hall.background import running_hall

        with tempfile.TemporaryDirectory() as folder, running_hall(Path(folder), workers=2) as running:
            yield running.info["url"].rstrip("/")
        return
    proc, port = start_streamlit("dashboard/app.py", ["--server.fileWatcherType", "none"])
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=15)
    parser.add_argument("--start", type=int, default=2, help="the screen to start from (1 = the first)")
    parser.add_argument("--hall", action="store_true", help="through a lecture hall (HAProxy, 2 labs, Redis)")
    parser.add_argument("--no-pictures", action="store_true",
                        help="the presenter's pictures of this screen and the next switched off (on by default)")
    a = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from classroom.decks import default_deck
    from dashboard.present import deck as decks

    total = len(default_deck(decks.names()).screens)
    presses = max(1, min(a.presses, total - a.start))
    with served(a.hall) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        presenter = context.new_page()
        presenter.goto(f"{url}/present?deck=default&presenter=1&screen={a.start}")
        presenter.wait_for_selector(SETTLED, timeout=120_000)
        presenter.get_by_role("textbox", name="Choose a PIN (6 or more characters)").fill("246810")
        presenter.get_by_role("button", name="Open a room").first.click()
        link = presenter.get_by_role("link", name="Open the projector window")
        link.wait_for(timeout=60_000)
        code = re.search(r"code=(\w+)", link.get_attribute("href"))[1]
        if a.no_pictures:
            presenter.get_by_text("Pictures of the screens", exact=True).click()
            presenter.wait_for_selector(SETTLED, timeout=60_000)
        projector = context.new_page()
        projector.goto(f"{url}/present?deck=default&code={code}&projector=1")
        projector.wait_for_function(SHOWS, arg=[MARKER, f"{a.start} / {total}"], polling=20, timeout=120_000)
        shown, own = [], []
        for number in range(a.start + 1, a.start + presses + 1):
            projector.wait_for_selector(SETTLED, timeout=60_000)
            presenter.wait_for_selector(SETTLED, timeout=60_000)
            presenter.wait_for_timeout(300)  # the presenter's clock and polls at rest, as between two steps
            if "→ (or R) reveals the answer" in presenter.inner_text("body"):  # "next" reveals an open question
                presenter.keyboard.press("ArrowRight")  # first: not timed, it is no step
                projector.get_by_text("How the class answered").wait_for(timeout=60_000)
                projector.wait_for_selector(SETTLED, timeout=60_000)
                presenter.wait_for_selector(SETTLED, timeout=60_000)
            start = time.perf_counter()
            presenter.keyboard.press("ArrowRight")
            presenter.wait_for_selector(f"h3:has-text('{number} / {total} ·')", timeout=60_000)
            own.append(time.perf_counter() - start)
            projector.wait_for_function(SHOWS, arg=[MARKER, f"{number} / {total}"], polling=20, timeout=60_000)
            projector.wait_for_selector(SETTLED, timeout=60_000)
            shown.append(time.perf_counter() - start)
            print(f"screen {number:2d}: projector {shown[-1]:.2f} s (presenter {own[-1]:.2f} s)", flush=True)
        browser.close()
    med, ref = statistics.median(shown), statistics.median(own)
    print(f"\n{presses} presses, key on the presenter -> the projector shows the next screen: median {med:.2f} s, "
          f"p90 {sorted(shown)[int(0.9 * (len(shown) - 1))]:.2f} s, max {max(shown):.2f} s "
          f"(goal: median at most 1 s: {'met' if med <= 1 else 'NOT met'})")
    print(f"reference, the same key -> the presenter's own screen: median {ref:.2f} s; projector / presenter "
          f"{med / ref:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
