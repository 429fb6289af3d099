"""How fast does the dashboard answer a slider, next to the floor Streamlit itself sets?

In headless Chromium (Debian's, driven by Playwright): the time from a keyboard slider move to
the page settled (the script finished and the browser painted the redrawn charts), median of
several moves, for
- the lab's main page at the default lesson (also in projector mode, and in the dark theme:
  issue 11), and at 64 tokens × d_model 512 × 16 heads;
- the Trained heads page on a 20-word sentence (23 word pieces), moving its head slider;
- a bare Streamlit app with one slider and one heatmap of the same size (the floor),
  both served the same way (same flags, same working directory, so the same
  .streamlit/config.toml) and measured move for move in turn,
plus the server-side rerun time via AppTest (default lesson, a slider change each rerun), and,
once, the Trained heads page opened cold on a fresh server (the model loads) and again warm.
Goals (issue 3): ≤ 1.3× the floor at the default lesson (issue 11: in projector mode and in the
dark theme too), ≤ 2× at the large one, AppTest ≤ 50 ms; (issue 9) ≤ 1.3× the floor on the
Trained heads page.

    python benchmarks/dashboard_bench.py [--repeats 9]
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from lab_server import ROOT, start_streamlit
from playwright.sync_api import Error as PlaywrightError

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
LARGE = "source=random&seq_len=64&d_model=512&num_heads=16"
TRAINED = "trained-heads?sentence=" + quote("The teacher who lived near the river told the children a long story about "
                                             "the storm that flooded the town.")  # 20 words, 23 word pieces
TRAINED_T = 23

BARE_APP = '''
import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

T = int(st.query_params.get("T", "7"))
t = st.slider("Softmax temperature", 0.05, 5.0, 1.0, step=0.05, key="t")
rng = np.random.default_rng(0)
w = np.exp(rng.standard_normal((T, T)) / t)
w /= w.sum(axis=1, keepdims=True)
q, k = np.divmod(np.arange(T * T), T)
df = pd.DataFrame({"query": q, "key": k, "weight": w.reshape(-1)})
st.altair_chart(alt.Chart(df).mark_rect().encode(x="key:O", y="query:O", color="weight:Q")
                .properties(width=10 * T, height=10 * T), width="content")
'''

# In every page, before Streamlit's code: pass two kinds of the server's messages (ForwardMsg,
# protobuf) to window.__lab_msg. session_status_changed (field 9: first byte 0x4a, no metadata
# before it) holds a SessionStatus whose field 2 (tag 0x10) is script_is_running: ("status",
# running). script_finished (field 6: tag 0x30, after the metadata, field 2: 0x12 and a length)
# is an enum: ("finished", value), where 2 is FINISHED_EARLY_FOR_RERUN.
STATUS_HOOK_JS = """(() => {
  const varint = (b, i) => { let v = 0, s = 0; while (b[i] & 0x80) { v += (b[i++] & 0x7f) * 2 ** s; s += 7; }
                             return [v + b[i] * 2 ** s, i + 1]; };
  const Base = window.WebSocket;
  window.WebSocket = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', event => {
        if (!(event.data instanceof ArrayBuffer) || !window.__lab_msg) return;
        const b = new Uint8Array(event.data);
        if (b.length >= 2 && b[0] === 0x4a && b[1] < 0x80) {
          let running = false;
          for (let i = 2; i + 1 < 2 + b[1]; i += 2) running = running || (b[i] === 0x10 && b[i + 1] === 1);
          window.__lab_msg('status', running);
        } else if (b.length >= 2 && b[0] === 0x12) {
          const [length, start] = varint(b, 1);
          const at = start + length;
          if (b[at] === 0x30) window.__lab_msg('finished', varint(b, at + 1)[0]);
        }
      });
    }
  };
})();"""

# Arms a promise that resolves with the milliseconds from the next key press to the page settled:
# the server said its last run for the move ended, the page shows it, and a frame went by with
# nothing on the page changed (Vega draws the charts after React's commit). The page's own
# `data-test-script-state` alone is not enough: a fast run (the floor's, about 1 move in 20) can
# start and end within one React commit, so the attribute never leaves notRunning; and a lab move
# that reruns from a callback (the sidebar's page-only fragment hands its run to the lesson's:
# FINISHED_EARLY_FOR_RERUN, then the second run) sometimes shows notRunning between the two runs.
ARM_JS = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  const state = () => app.getAttribute('data-test-script-state');
  window.__done = new Promise((resolve, reject) => {
    let t0 = null, ended = false, rerun = false;
    document.addEventListener('keydown', () => { t0 = performance.now(); }, {once: true, capture: true});
    // Then the first animation frame with no change to the page during the frame before it: the
    // charts' redraw (Vega's, after React's commit) has been painted. (At most 60 frames.)
    const settle = () => {
      let changed = true, frames = 0;
      const quiet = new MutationObserver(() => { changed = true; });
      quiet.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
      const frame = () => {
        if (!changed || ++frames > 60) { quiet.disconnect(); resolve(performance.now() - t0); return; }
        changed = false;
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    };
    const obs = new MutationObserver(() => {
      if (state() === 'notRunning') { obs.disconnect(); settle(); }
    });
    window.__lab_msg = (kind, value) => {
      if (t0 === null || ended) return;
      if (kind === 'finished') { rerun = value === 2; return; }
      if (value || rerun) return;  // still running, or a run that ended only to start the next one
      ended = true;
      window.__lab_msg = null;
      // The page still shows the run (it ends at its next commit), or never showed it (a fast run).
      if (state() === 'notRunning') settle();
      else obs.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
    };
    setTimeout(() => reject(new Error('the app did not settle within 15 s')), 15000);
  });
}"""
# The page after a run: the script ended and every chart holds its marks (polled every 100 ms, not every frame).
DRAWN_JS = """() => document.querySelector('[data-testid=stApp][data-test-script-state=notRunning]') && [...document
  .querySelectorAll('[data-testid=stVegaLiteChart]')].every(chart => chart.querySelector('svg.marks, canvas.marks'))"""


def serve(script: Path, tree: Path = ROOT):
    proc, port = start_streamlit(script, tree=tree)
    return proc, f"http://127.0.0.1:{port}"


def open_app(browser, url: str, scheme: str = "light", slider: str = "Softmax temperature"):
    """A page at `url` (in the browser's light or dark preference), settled, and its slider named `slider`."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000}, color_scheme=scheme)
    page.add_init_script(STATUS_HOOK_JS)
    page.goto(url)
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=60_000)
    page.wait_for_selector("[data-testid=stVegaLiteChart]", timeout=60_000)
    page.wait_for_function(DRAWN_JS, polling=100, timeout=60_000)
    found = page.locator("[data-testid=stSlider]").filter(has=page.get_by_text(slider, exact=True))
    found.scroll_into_view_if_needed()
    return page, found.get_by_role("slider")


def move(page, slider, key: str) -> float | None:
    """Milliseconds from one key press to the page settled, or None if the move never settled."""
    page.evaluate(ARM_JS)
    slider.press(key)
    try:
        took = page.evaluate("window.__done")
    except PlaywrightError:  # a move that never reached the server: note it, measure the next
        took = None
    page.wait_for_function(DRAWN_JS, polling=100, timeout=60_000)  # the next move starts from a drawn page
    return took


def paired_times(browser, lab_url: str, floor_url: str, repeats: int, scheme: str = "light",
                 lab_slider: str = "Softmax temperature", floor_slider: str | None = None) -> tuple[list, list]:
    """Slider moves on the lab and on the floor, one after the other (lab, floor, lab, ...), so a
    busy spell of the machine falls on both alike. The first move of each warms caches, dropped."""
    apps = [open_app(browser, lab_url, scheme, lab_slider),
            open_app(browser, floor_url, scheme, floor_slider or "Softmax temperature")]
    times, missed = ([], []), [0, 0]
    for i in range(repeats + 1):
        for j, (page, slider) in enumerate(apps):
            t = move(page, slider, "ArrowRight" if i % 2 == 0 else "ArrowLeft")
            if t is None:
                missed[j] += 1
            elif i > 0:
                times[j].append(t)
    for (page, _), url, n in zip(apps, (lab_url, floor_url), missed, strict=True):
        page.close()
        if n:
            print(f"  ({n} of {repeats + 1} moves at {url} did not settle and were left out)", flush=True)
    return times


def browser_medians(repeats: int, only_trained: bool = False, against: Path | None = None) -> dict:
    """Lab against the bare app's floor; or, with `against` (another checkout of the lab), this tree's
    lab against that tree's, on the same pages, move for move."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare_app.py"
        bare.write_text(BARE_APP)
        lab, lab_url = serve(ROOT / "dashboard" / "app.py")
        floor, floor_url = serve(against / "dashboard" / "app.py", against) if against else serve(bare)

        def there(lab_path: str, floor_path: str) -> str:  # the floor's page: the same as the lab's against a tree
            return floor_url + (lab_path if against else floor_path)

        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                if not against:
                    cold, warm, first = cold_open(browser)
                    print(f"Trained heads opened in a new tab on a fresh server: {cold:.1f} s cold (the model "
                          f"loads), {warm:.1f} s warm; page 1 {first:.1f} s", flush=True)
                slider = "Softmax temperature"
                out = {} if only_trained else {
                    "default lesson": paired_times(browser, lab_url + "/", there("/", "/?T=7"), repeats,
                                                   floor_slider=slider if against else None),
                    "default lesson, projector mode": paired_times(browser, lab_url + "/?projector=1",
                                                                   there("/?projector=1", "/?T=7"), repeats,
                                                                   floor_slider=slider if against else None),
                    "default lesson, dark theme": paired_times(browser, lab_url + "/", there("/", "/?T=7"), repeats,
                                                               scheme="dark", floor_slider=slider if against else None),
                    "64 tokens × 512 × 16 heads": paired_times(browser, f"{lab_url}/?{LARGE}",
                                                               there(f"/?{LARGE}", "/?T=64"), repeats,
                                                               floor_slider=slider if against else None),
                }
                out["Trained heads, 20 words: head"] = paired_times(
                    browser, f"{lab_url}/{TRAINED}", there(f"/{TRAINED}", f"/?T={TRAINED_T}"), repeats,
                    lab_slider="Head", floor_slider="Head" if against else None)
                browser.close()
        finally:
            for proc in (lab, floor):
                proc.terminate()
                proc.wait(timeout=20)
    return {k: (statistics.median(a), statistics.median(b)) for k, (a, b) in out.items()}


def cold_open(browser) -> list[float]:
    """Seconds from asking for a page in a new browser tab to its charts drawn, on a fresh server whose
    first page was page 1 (Streamlit, torch and Altair imported; the model not loaded): the Trained heads
    page cold (the model loads, once per server), then warm, then page 1 again for comparison."""
    proc, url = serve(ROOT / "dashboard" / "app.py")
    try:
        open_app(browser, url + "/")[0].close()
        return [open_time(browser, f"{url}/{path}") for path in (TRAINED, TRAINED, "")]
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def open_time(browser, url: str) -> float:
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("[data-testid=stVegaLiteChart]", timeout=120_000)
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=120_000)
    seconds = time.perf_counter() - t0
    page.close()
    return seconds


def apptest_median(repeats: int, query: dict | None = None) -> float:
    """Server-side seconds per rerun after a temperature change (the trace is recomputed).

    The change reruns only the lesson's fragment (dashboard/lesson/rerun.py), and AppTest then
    keeps only the fragment's elements: a full run, not timed, brings the sidebar back first."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120)
    at.query_params = dict(query or {})
    at.run()
    times = []
    for i in range(repeats + 1):
        if not any(getattr(e, "key", None) == "ctl_temperature" for e in at.sidebar):
            at.run()
        at.sidebar.select_slider(key="ctl_temperature").set_value((1.5, 2.0)[i % 2])
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception
    return statistics.median(times[1:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--only-trained", action="store_true", help="only the Trained heads page's cases")
    parser.add_argument("--against", type=Path, metavar="TREE",
                        help="another checkout of the lab (e.g. `git worktree add /tmp/old HEAD~1`): its lab is the "
                             "reference, on the same pages, instead of the bare app")
    args = parser.parse_args()
    if not args.only_trained and not args.against:
        server_default = apptest_median(args.repeats)
        print(f"AppTest rerun, default lesson: {server_default * 1000:.0f} ms median (goal ≤ 50 ms)", flush=True)
        server_large = apptest_median(args.repeats, dict(p.split("=") for p in LARGE.split("&")))
        print(f"AppTest rerun, 64 × 512 × 16:  {server_large * 1000:.0f} ms median", flush=True)
    medians = browser_medians(args.repeats, args.only_trained, args.against and args.against.resolve())
    goals = {"default lesson": 1.3, "default lesson, projector mode": 1.3, "default lesson, dark theme": 1.3,
             "64 tokens × 512 × 16 heads": 2.0, "Trained heads, 20 words: head": 1.3}
    reference = f"{args.against} (ms)" if args.against else "floor (ms)"
    print(f"{'case':<32}{'lab (ms)':>10}{reference:>{max(12, len(reference) + 2)}}{'ratio':>8}"
          f"{'' if args.against else 'goal':>7}")
    for case, (lab, floor) in medians.items():
        goal = "" if args.against else f"{goals[case]:.1f}"
        print(f"{case:<32}{lab:>10.0f}{floor:>{max(12, len(reference) + 2)}.0f}{lab / floor:>8.2f}{goal:>7}")


if __name__ == "__main__":
    main()
