"""The presenter view's hold on a page screen's own controls (issue 48 item 7): the step, the stage, the head or
the layer that the page's controls pick, picked on the lectern and shown by the projector's window, which opens
the page's view again with them (projector.arrive), as a link would.

The picks live in the room's presentation record (classroom/rooms/presentation.py, `view`): a reload of the
presenter view keeps them, the projector reads them with the screen, and a new screen starts from its own view.
Which views a page lets the lectern steer is the catalogue's (classroom/catalogue.py, `Page.steers`)."""

import streamlit as st

from classroom.catalogue import Steer, page_at
from classroom.decks import Screen
from dashboard import display
from dashboard.room import session as room_session

SWITCH = {"0": "off", "1": "on"}
def steers(screen: Screen) -> tuple:
    """The views of this screen's page that the lectern steers (none for a screen that is not a ready page)."""
    if screen.kind != "page" or screen.unready:
        return ()
    return page_at(screen.page).steers


def values(steer: Steer, screen: Screen) -> list[str]:
    """The values the view takes on this screen, as its address writes them."""
    if steer.count == "switch":
        return list(SWITCH)
    if isinstance(steer.count, int):
        count = steer.count
    elif steer.count == "heads":
        count = screen.lesson.num_heads
    else:  # the trained model's layers or heads
        from dashboard.app_pages import trained_model

        info = trained_model.info()
        count = info.layers if steer.count == "model layers" else info.heads
    return [str(n) for n in range(1, count + 1)]


def _steer(name: str, key: str):
    value = st.session_state.get(key)
    if value is None:  # the picked one clicked off: it stays picked
        return
    room_session.present(room_session.presentation().steered(name, value))


def panel(screen: Screen):
    """The screen's steered views as rows of buttons; unpicked ones show the screen's own view on the projector."""
    wanted = [s for s in steers(screen) if len(values(s, screen)) > 1]
    if not wanted:
        return
    steered, own = dict(room_session.presentation().view), dict(screen.view)
    with st.container(border=True, key="present_steer"):
        st.markdown("**On the projector**")
        for steer in wanted:
            options = values(steer, screen)
            current = steered.get(steer.name, own.get(steer.name))
            key = f"present_steer_{screen.number}_{steer.name}"
            st.segmented_control(steer.label, options, default=current if current in options else None, key=key,
                                 format_func=SWITCH.get if steer.count == "switch" else str,
                                 on_change=_steer, args=(steer.name, key))
        st.caption("Nothing picked: the page's own view, as the deck opens it.")
    display.give_keys_back(".st-key-present_steer")
