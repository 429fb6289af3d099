"""The lecture player: the video, and beneath it a caption band with the step being shown.

The band is the videos' captions (WCAG 2.1, 1.2.2 Captions (Prerecorded)): the narration's own text,
not recognised speech, with the narration's own timings (the .srt the render wrote from them), shown by
the video's clock. It is on unless the session's display setting "Captions under videos" is off
(controls.captions). The browser's own subtitles sit on the picture's bottom rows, which in these videos
are the grids' last rows: so the video plays without a subtitle track, and the band below it shows the
caption of the moment. A downloaded video still carries its captions: the mp4's subtitle track and the
.vtt beside it (animations/media.py). The band keeps the
height of the longest caption, so the page does not jump from step to step, and the video is
sized so that its heading, the picture and the band fit the window together. Text reaches the
page as text (textContent), never as HTML: a caption quotes the lesson's tokens.

Theme: the band takes the page's text and secondary background colours (light or dark).
"""

from functools import lru_cache
from pathlib import Path

import streamlit as st

from animations.sections import read_srt
from dashboard import controls

MIN_VIDEO_PX = 180  # the picture never shrinks below this height to make room

CSS = """
.lab-band {
  box-sizing: border-box; width: 100%; margin: 0; padding: 0.6rem 0.9rem;
  font-size: 1.3rem; line-height: 1.45; border-radius: 0.5rem;
  color: var(--st-text-color, inherit);
  background: var(--st-secondary-background-color, rgba(128, 128, 128, 0.12));
  font-family: var(--st-font, inherit);
}
"""

JS = """
const NARROW = 480;  // px: a band narrower than this is in the sidebar

function videoBefore(container) {
  for (let el = container && container.previousElementSibling; el; el = el.previousElementSibling) {
    const video = el.querySelector("video");
    if (video) return video;
  }
  return null;
}

function headingBlock(id, fallback) {
  const heading = id ? document.getElementById(id) : null;
  if (!heading) return fallback;
  return heading.closest('[data-testid="stHorizontalBlock"]') ||
         heading.closest('[data-testid="stElementContainer"]') || heading;
}

export default function ({ data, parentElement }) {
  const band = parentElement.querySelector(".lab-band");
  const root = parentElement.host || parentElement;
  const mine = root.closest('[data-testid="stElementContainer"]') || root;
  const video = videoBefore(mine);
  const cues = (data && data.cues) || [];
  if (!band || !video) return;
  band.style.display = data && data.hidden ? "none" : "";  // captions switched off: the band takes no room

  const captionAt = (t) => { const c = cues.find((c) => t >= c[0] && t < c[1]); return c ? c[2] : ""; };
  const show = () => { band.textContent = captionAt(video.currentTime) || (cues.length ? cues[0][2] : ""); };
  const reserve = () => {  // the band as tall as its longest caption
    band.style.minHeight = "";
    let tallest = 0;
    for (const c of cues) { band.textContent = c[2]; tallest = Math.max(tallest, band.getBoundingClientRect().height); }
    band.style.minHeight = tallest + "px";
    show();
  };
  const marker = () => {  // a deck's marker, once drawn
    const m = data.slide && document.querySelector('[class*="st-key-present_marker"]');
    const r = m ? m.getBoundingClientRect() : null;
    return r && r.height > 0 ? r : null;
  };
  // A rerun can take the video (or the band) out of the page before this component's cleanup runs, while a
  // resize, a font or an observer still calls back: a player that has left the page does nothing.
  const gone = () => !video.isConnected || !band.isConnected;
  const fit = () => {  // heading, picture and band together within the window
    if (gone()) return;
    const header = document.querySelector('[data-testid="stHeader"]');
    const top = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
    const first = headingBlock(data && data.heading, video).getBoundingClientRect();
    const last = mine.getBoundingClientRect();
    const picture = video.getBoundingClientRect();
    const rest = (last.bottom - first.top) - picture.height;
    // A page's player fits the window once its heading is scrolled up to the header. A deck's screen is a slide,
    // never scrolled: from its heading's own top (below the page's padding) down to the "n / N" marker fixed in
    // the window's corner (over the band, it hid the caption's last words)
    const mark = marker();
    const floor = mark ? Math.min(window.innerHeight, mark.top) : window.innerHeight;
    const room = Math.max(data.least || 0, floor - (data.slide ? Math.max(top, first.top) : top) - rest - 16);
    const aspect = video.videoWidth && video.videoHeight ? video.videoWidth / video.videoHeight : 16 / 9;
    video.style.width = Math.floor(Math.min(video.parentElement.clientWidth, room * aspect)) + "px";
    video.style.height = "auto";
    video.style.margin = "0 auto";
    video.style.display = "block";
  };
  const relayout = () => {  // a narrow band (the sidebar) takes smaller type
    if (gone()) return;
    band.style.fontSize = band.parentElement.clientWidth < NARROW ? "1rem" : "";
    reserve();
    fit();
  };
  for (const track of video.textTracks) track.mode = "disabled";  // no subtitles over the grids
  video.addEventListener("timeupdate", show);
  video.addEventListener("seeked", show);
  video.addEventListener("loadedmetadata", fit);
  window.addEventListener("resize", relayout);
  relayout();
  requestAnimationFrame(fit);
  // A slide is fitted from its video's own top: fit again whenever what lies above it settles (the page's block
  // changes size) and once the marker is drawn, if after the band (each fit of the same layout gives the same size)
  const main = data.slide && document.querySelector('[data-testid="stMainBlockContainer"]');
  const settle = main ? new ResizeObserver(() => requestAnimationFrame(fit)) : null;
  if (settle) settle.observe(main);
  const awaiting = data.slide && !marker() ? new MutationObserver(() => {
    if (marker()) { awaiting.disconnect(); fit(); } }) : null;
  if (awaiting) awaiting.observe(document.body, { childList: true, subtree: true });
  // A caption's height depends on its font: measured again once the page's fonts are in.
  if (document.fonts) document.fonts.ready.then(relayout);
  return () => {
    video.removeEventListener("timeupdate", show);
    video.removeEventListener("seeked", show);
    video.removeEventListener("loadedmetadata", fit);
    window.removeEventListener("resize", relayout);
    if (awaiting) awaiting.disconnect();
    if (settle) settle.disconnect();
  };
}
"""



@lru_cache(maxsize=1)
def _band():
    """The caption band's component, registered once per process on first use."""
    return st.components.v2.component("lab_caption_band", html='<p class="lab-band" aria-live="polite"></p>',
                                      css=CSS, js=JS)


def cues_of(movie: Path) -> list[tuple[float, float, str]]:
    """(start, end, text) of the video's subtitles; [] when it has none."""
    return read_srt(Path(movie).with_suffix(".srt"))


def cues_within(cues, start: float, end: float) -> list[tuple[float, float, str]]:
    """The cues of a whole video heard between `start` and `end` (a step's clip), on the clip's own clock."""
    return [(max(s, start) - start, min(e, end) - start, t) for s, e, t in cues if s < end - 1e-3 and e > start + 1e-3]


def step_cues(movie: Path, step) -> list[tuple[float, float, str]]:
    """The captions of one step's clip (animations.sections.Step) as the whole video times them; the step's
    caption for all of it when the video has no .srt."""
    return cues_within(cues_of(movie), step.start, step.end) or [(0.0, max(step.end - step.start, 0.1), step.caption)]


def play(movie: Path, key: str, heading: str = "", cues=None, autoplay: bool = False, slide: bool = False):
    """The video with its sound and no subtitle track, then the caption band (none when captions are off).

    `heading`: the id of the heading above the video (its anchor), kept on screen with it;
    `cues`: the captions to show, by default the video's own .srt; `slide`: a deck's screen (never scrolled,
    its "n / N" marker in the window's corner)."""
    st.video(str(movie), autoplay=autoplay)
    shown = controls.captions()
    cues = (cues_of(movie) if cues is None else cues) if shown else []
    _band()(data={"cues": [[float(s), float(e), str(t)] for s, e, t in cues], "heading": heading,
                  "least": MIN_VIDEO_PX, "hidden": not shown, "slide": slide}, key=key,
          height="content")
