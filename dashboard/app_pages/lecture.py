"""Page 8: every lecture video (the trained heads and the induction film included), and a presenter mode
that steps through one scene."""

import streamlit as st

from animations.catalog import DESCRIPTIONS, FILMS, QUALITIES, SCENES, TRAINED, check_scene, lecture_lesson
from animations.sections import steps
from animations.voice import missing as voice_missing
from core import ConfigError
from dashboard.lesson import state
from dashboard.video import player, studio

st.title("Lecture", anchor=False)
st.markdown(
    "Each scene animates the numbers of one lesson, computed by the same code as the other pages, and a "
    "narrator reads each step with that lesson's numbers; the caption of the moment stands beneath the video. "
    "The default lesson's fast videos are made the first time someone opens this page and kept afterwards; "
    "class quality (1080p, for a projector) is made on request, or the night before with `make lecture`. "
    "**Render with my settings** in the sidebar makes one of the lesson on your screen."
)
missing = studio.videos_available()
if missing:
    st.info(missing)
    st.stop()
if voice_missing():
    st.info(voice_missing() + " The videos are silent, with captions.")

lesson_name = st.segmented_control("Lesson", ["the default lesson", "my settings"], default="the default lesson",
                                   key="lecture_lesson") or "the default lesson"
mine = state.lesson() if lesson_name == "my settings" else None
OWN = {**dict.fromkeys(TRAINED, "the trained model reading the example sentence"),
       **dict.fromkeys(FILMS, "the default training run")}  # what a scene draws when it cannot draw your lesson
quality = st.radio("Quality", studio.CHOICES, key="lecture_quality", horizontal=True,
                   format_func=lambda q: QUALITIES[q].label)
presenting = st.toggle("Presenter mode: step through one scene", key="lecture_presenter")


def lesson_of(scene: str):
    """The lesson `scene` draws here: yours, if it can draw it, else the class's (`make lecture` makes those);
    a film's scene draws its recorded run whatever the lesson."""
    if mine is not None and scene not in FILMS:
        try:
            check_scene(scene, mine)
            return mine
        except ConfigError:
            pass
    return lecture_lesson(scene)


def _video_of(scene: str):
    """The finished video of `scene` for the chosen lesson and quality, or None while it is being made."""
    try:
        lesson = lesson_of(scene)
    except ConfigError as err:  # the trained model is not installed: its hint
        st.info(str(err))
        return None
    shared = lesson is not mine  # the class's lesson: one video for everyone, narrated by the lab's voice
    if shared and mine is not None:
        st.caption(f"This video draws {OWN.get(scene, 'the default lesson')}, not your lesson.")
    voice = studio.NARRATOR if shared else studio.chosen_voice()
    slot = f"lecture_{scene}_{lesson.key()}_{quality}_{voice.tag() if voice else 'silent'}"
    job = st.session_state.get(f"studio_job_{slot}")
    if job is None or (job.state == "done" and not job.path.is_file()):
        if (shared and quality == "low") or studio.service().cached(scene, lesson, quality, voice) is not None:
            studio.request(scene, lesson, slot, shared=True, voice=voice, quality=quality)  # made for all, or kept
        else:
            st.button(f"Render {scene} at {QUALITIES[quality].label}: {studio.wait_text(scene, quality)}",
                      key=f"lecture_render_{scene}", on_click=studio.request, args=(scene, lesson, slot),
                      kwargs={"voice": voice, "quality": quality})
        job = st.session_state.get(f"studio_job_{slot}")
    if job is not None and job.state == "done":
        return job.path
    studio.job_panel(slot, current=lesson)
    return None


def _presenter(scene: str):
    movie = _video_of(scene)
    if movie is None:
        return
    parts = steps(movie)
    if not parts:
        st.warning("This video has no steps to present.")
        return
    key = f"presenter_step_{scene}"
    step = min(st.session_state.get(key, 0), len(parts) - 1)
    back, where, forward = st.columns([1, 4, 1], vertical_alignment="center")
    back.button("◀ Back", key="presenter_back", disabled=step == 0, shortcut="Left",
                on_click=lambda: st.session_state.update({key: step - 1}), width="stretch")
    where.subheader(f"Step {step + 1} of {len(parts)}: {parts[step].name.replace('-', ' ')}", anchor="lab-step")
    forward.button("Next ▶", key="presenter_next", disabled=step == len(parts) - 1, shortcut="Right",
                   on_click=lambda: st.session_state.update({key: step + 1}), width="stretch")
    clip = parts[step]  # the clip carries its own step's speech; its caption stands beneath it
    player.play(clip.clip, key="band_presenter", heading="lab-step", cues=player.step_cues(movie, clip),
                autoplay=True)


if presenting:
    scene = st.selectbox("Scene", SCENES, key="presenter_scene", format_func=lambda s: f"{s}: {DESCRIPTIONS[s]}")
    st.caption("← and → step back and forward (click the page first, outside any field).")
    _presenter(scene)
else:
    for scene in SCENES:
        st.subheader(scene.capitalize(), anchor=f"lab-{scene}")
        st.caption(DESCRIPTIONS[scene])
        movie = _video_of(scene)
        if movie is not None:
            studio.play(movie, key=f"lecture_{scene}", heading=f"lab-{scene}")
