"""Present a lecture: a deck (classroom/decks.py) on the projector, stepped by keys, and a presenter view.

- `/present?deck=default&screen=3&projector=1`: the projector's window, from screen 3; → ← PageDown PageUp
  and Space step it (dashboard/present/projector.py).
- `/present?deck=default&presenter=1`: the presenter's view, with the notes (dashboard/present/presenter.py),
  the room's teacher's alone (anyone else gets the forms to open a room or take one back with its PIN); it
  steers the window it opens (`...&code=<the room's code>`), and asks the deck's questions.
- `/present`: the deck's screens, the decks to choose from (the lab's and the teacher's folder's,
  dashboard/present/deck.py), and the way to both.
"""

import streamlit as st

from classroom.decks import DeckError
from classroom.rooms import normalise_code
from dashboard import controls
from dashboard.lesson import state
from dashboard.present import deck as decks
from dashboard.present import presenter, projector, ready
from dashboard.room import doors
from dashboard.room import session as room_session
from dashboard.text import deck_markdown, plain

MODE = "present_mode"  # "projector" or "presenter" once chosen; neither: the deck's overview
DECK = "present_deck"
NOTICE = projector.LINK_NOTICE  # what the opening link asked for that cannot be


ss = st.session_state
linked_screen = state.view_from_url("screen", str)
if linked_screen is not None:
    try:
        linked_screen = int(linked_screen)
    except ValueError:
        linked_screen = 1
        ss[NOTICE] = "This link's screen is not a number: the deck starts from its first screen."
name = state.view_from_url("deck", str) or ss.get(DECK, "default")
code = state.view_from_url("code", str)
if state.view_from_url("presenter", str) == "1":
    ss[MODE] = "presenter"
elif code or linked_screen is not None:
    ss[MODE] = "projector"
try:
    deck = decks.load(name)
except DeckError as err:
    ss[NOTICE] = f"{err} This is the default deck."
    deck = decks.load("default")
if linked_screen is not None and ss.get(MODE) == "projector":
    projector.arrive(deck, linked_screen)
if ss.get(NOTICE):  # until the first step: a page screen's first run may run the app again at once
    st.warning(plain(ss[NOTICE]), icon="🔗")
ss[DECK] = decks.name_of(deck)
state.keep_view("deck", decks.name_of(deck), None)

if ss.get(MODE) == "projector":
    if code:
        projector.join(code)
    preview = state.view_from_url("preview", str)  # the presenter's picture of a screen: its browser or device only
    if preview in projector.AHEAD and (doors.teacher_device() or doors.browser_teaches(normalise_code(code) or "")):
        ss[projector.PREVIEW] = preview
    if ss.get(projector.PREVIEW):
        state.keep_view("preview", ss[projector.PREVIEW], None)
    if room_session.student_code():
        state.keep_view("code", room_session.student_code(), None)  # a reload joins again: the public code only
    projector.show(deck)
elif ss.get(MODE) == "presenter":
    state.keep_view("presenter", 1, 0)
    presenter.view(deck, linked_screen)
else:
    st.title("Present a lecture", anchor=False)
    offered = list(decks.listing())  # the lab's own, and the teacher's folder's (docs/decks.md, your own decks)
    if len(offered) > 1:
        st.selectbox("Deck", offered, index=offered.index(ss[DECK]) if ss[DECK] in offered else 0,
                     key="present_choose", on_change=lambda: ss.update({DECK: ss["present_choose"]}),
                     help="The lab's own decks and yours: the files of your deck folder (make deck NAME=...).")
    st.markdown(f"**{deck_markdown(deck.title, inline=True)}**: {len(deck.screens)} screens, {deck.minutes:g} "
                f"minutes planned, {sum(s.kind == 'question' for s in deck.screens)} room questions.")
    if deck.about:
        st.markdown(deck_markdown(deck.about))
    st.markdown("The **presenter view** is the room's teacher's: open a room (or take yours back with its PIN) "
                "and it shows each screen's notes, the next screen and the time, steers a **projector window** "
                "and asks the deck's questions on students' phones. Or show the deck on this screen alone, "
                "without the notes, stepped by → ← (a clicker's PageDown and PageUp) and Space.")
    missing = ready.not_ready(deck)
    ready.warning(deck)
    left, right = st.columns(2)
    left.button("Presenter view", key="present_to_presenter", type="primary", on_click=ss.update,
                args=({MODE: "presenter"},))
    right.button("Show it here, as the projector", key="present_to_projector", on_click=ss.update,
                 args=({MODE: "projector", controls.state_key(controls.PROJECTOR, shared=True): True},))
    st.dataframe([{"screen": s.number, "kind": s.kind, "title": s.title, "minutes": s.minutes,
                   "on this machine": f"not ready: {missing[s.number]}".replace("`", "") if s.number in missing
                   else "ready"} for s in deck.screens], hide_index=True)
