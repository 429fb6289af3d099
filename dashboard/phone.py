"""A phone's browser, and the one switch a phone gets: whether a page draws its dense charts phone-sized (the
CSS for a phone's page is display.py's PHONE_CSS)."""

import streamlit as st

from dashboard import controls

PHONE_VIEW = "phone_view"  # the "Phone-sized view" switch: this session's alone, never in the address or the lesson


def is_phone(user_agent: str | None) -> bool:
    """A phone's browser, by its User-Agent: it says "Mobi" (MDN's advice; iPhone's Safari and Android phones'
    Chrome say "Mobile", tablets mostly do not, and are wide enough for the full charts). None: not a phone."""
    return "Mobi" in (user_agent or "")


def user_agent() -> str | None:
    """This session's browser's User-Agent, as its opening request said (None without one: AppTest, a bare script)."""
    return st.context.headers.get("User-Agent")


def phone_view(help: str) -> bool:
    """Whether this page draws its dense charts phone-sized: on a phone (never in projector mode) a "Phone-sized
    view" switch is drawn here, on by default, one setting for every page; elsewhere nothing is drawn: False.
    Off, a phone gets the full charts, in boxes that scroll sideways (display.PHONE_CSS)."""
    if controls.projector() or not is_phone(user_agent()):
        return False
    ss, key = st.session_state, f"{PHONE_VIEW}_switch"
    ss[key] = ss.setdefault(PHONE_VIEW, True)  # the widget's own key goes when a page does not draw it
    return st.toggle("Phone-sized view", key=key, help=help, on_change=lambda: ss.__setitem__(PHONE_VIEW, ss[key]))
