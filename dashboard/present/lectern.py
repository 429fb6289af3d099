"""The presenter view's keys beyond the steps (projector.keys draws → ← and the clicker's): reveal.js's and
PowerPoint's habits. Each key presses a button this module draws hidden (CSS hides every `present_key_` button);
Streamlit binds the keys it can (`st.button(shortcut=...)`: letters, digits, Home, End, Enter, Escape) and a few
lines of script the three it refuses (".", "?" and R, which Streamlit keeps for its own rerun).

What each does is a plain function of the presenter (presenter.py passes them in): the keys only press.
"""

import streamlit as st

from dashboard import display

TYPED = "present_typed"  # digits typed toward a jump ("1", "12"), until Enter or Escape
NO_SUCH = "present_no_such"  # the number of a jump refused: the deck has no such screen
PANEL = "present_panel"  # "screens" (G) or "keys" (?) while that list is open
MAX_DIGITS = 3  # a deck holds at most classroom.decks.MAX_SCREENS (200) screens

# (keys, what they do): the "?" list, in the order a lecturer reaches for them
KEYS = (
    ("→  PageDown  Space", "next; on a question screen whose question is open, reveal it first"),
    ("←  PageUp", "back"),
    ("Home  End", "the first screen, the last screen"),
    ("a number, then Enter", "jump to that screen (Escape forgets the number)"),
    ("G", "list the screens, to jump to one"),
    ("B  or  .", "blank the projector (black); again to show it"),
    ("R", "reveal the answer of this screen's question"),
    ("A", "ask this screen's question again (after discussion)"),
    ("?", "this list"),
)



def _hidden(name: str, shortcut: str | None, on_click, args=(), disabled: bool = False):
    st.button(name, key=f"present_key_presenter_{name}", shortcut=shortcut, on_click=on_click, args=args,
              disabled=disabled)


def bind(last: int, go, blank, reveal, again, can_reveal: bool, can_again: bool):
    """The hidden buttons and their keys. `go(number)` stands on a screen; `blank()` blanks the projector or
    shows it again; `reveal()` and `again()` act on this screen's question (when `can_reveal`, `can_again`)."""
    _hidden("Home", "home", go, (1,))
    _hidden("End", "end", go, (last,))
    _hidden("B", "b", blank)
    _hidden("G", "g", toggle, ("screens",))
    _hidden("help", None, toggle, ("keys",))
    _hidden("reveal", None, reveal, disabled=not can_reveal)
    _hidden("A", "a", again, disabled=not can_again)
    for digit in "0123456789":
        _hidden(digit, digit, typed, (digit,))
    _hidden("Enter", "enter", jump, (go, last))
    _hidden("Escape", "escape", forget)
    display.presenter_keys()  # ".", "?" and R: the keys Streamlit's shortcuts refuse


def toggle(panel: str):
    ss = st.session_state
    ss[PANEL] = None if ss.get(PANEL) == panel else panel


def typed(digit: str):
    st.session_state[TYPED] = (st.session_state.get(TYPED, "") + digit)[-MAX_DIGITS:]


def jump(go, last: int):
    """Enter: to the screen whose number was typed; a number the deck has no screen for goes nowhere (a slip of
    the finger must not show the class the last screen), and the view says so."""
    number = st.session_state.pop(TYPED, "")
    if number and 1 <= int(number) <= last:
        go(int(number))
    elif number:
        st.session_state[NO_SUCH] = (int(number), last)


def forget():
    st.session_state.pop(TYPED, None)
    st.session_state[PANEL] = None


def typed_line():
    """The number typed so far, under this screen's picture (above the pictures, it moved both down and back)."""
    if number := st.session_state.get(TYPED):
        st.info(f"Go to screen **{number}**: Enter (Escape forgets it).")


def panels(titles: list[str], go, current: int):
    """What G and ? open: the screens to jump to (`current`, the screen the view stands on, marked), or the keys.
    One element whatever it holds: the presenter's pictures below it keep their place in the page (one moved
    would load again)."""
    with st.container(key="present_panels"):
        ss = st.session_state
        if refused := ss.pop(NO_SUCH, None):
            st.warning(f"There is no screen {refused[0]}: this deck has {refused[1]}. The projector stays where it is.")
        if ss.get(PANEL) == "keys":
            with st.container(border=True, key="present_keys_list"):
                st.markdown("**Keys** (? again closes this list)")
                st.table({"keys": [k for k, _ in KEYS], "what they do": [w for _, w in KEYS]})
        elif ss.get(PANEL) == "screens":
            with st.container(border=True, key="present_screens_list"):
                st.markdown("**Jump to a screen** (G again closes this list)")
                columns = st.columns(4)
                for i, title in enumerate(titles):
                    columns[i % 4].button(f"{i + 1}. {title}", key=f"present_jump_{i + 1}", on_click=_chosen,
                                          args=(go, i + 1), width="stretch",
                                          type="primary" if i + 1 == current else "secondary")


def _chosen(go, number: int):
    st.session_state[PANEL] = None
    go(number)
