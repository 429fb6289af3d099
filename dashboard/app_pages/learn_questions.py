"""The Watch it learn page's two predict-then-reveal questions.

1. Before the film: which head will become the induction head? (The answer is measured: the
   run's induction head, if one formed; the point is its layer, not its number.)
2. After it: what happens to the loss with one layer? (Revealed by training the same settings
   with one layer and comparing the two measured losses.)
A guess is locked before the answer shows; the answers are what the films measured.
"""

import numpy as np
import streamlit as st

from classroom import film_question
from core.film import COUNTING_WITHIN, INDUCTION_THRESHOLD
from dashboard.app_pages import film as parts
from dashboard.charts import training
from dashboard.charts.draw import draw
from dashboard.room import session as room_session

WHICH = "film_q_which"  # the locked guess of question 1 (or "skipped")
LOSS = "film_q_loss"  # the locked guess of question 2
LAYER_CHOICES = dict(zip(("layer 1", "layer 2", "none"), film_question.LAYER_CHOICES, strict=True))
LOSS_CHOICES = {"same": "It falls as far as with two layers",
                "between": "It falls, but stays well above the two-layer loss",
                "chance": "It stays at chance (no better than guessing)"}
SAME_WITHIN = 0.3  # final losses this close (nats) are "as far"
AT_CHANCE_WITHIN = 0.15  # a final loss this close to ln 32 is "at chance"


def _lock(key: str, choice_key: str):
    st.session_state[key] = st.session_state.get(choice_key)


def which_head(settings) -> bool:
    """Question 1, asked before the film is shown; True once it is answered or skipped."""
    if st.session_state.get(WHICH) or settings.layers != 2:
        return True
    with st.container(border=True):
        st.markdown(f"**Predict first.** This model has {settings.layers} layers of {settings.heads} heads. In which "
                    "layer will an induction head form: a head that, in the second copy of a repeated stretch, looks "
                    "at the letter that came just after the earlier copy of the current letter?")
        st.radio("Your guess", list(LAYER_CHOICES), format_func=LAYER_CHOICES.get, key=f"{WHICH}_choice",
                 horizontal=True)
        left, right = st.columns([1, 4])
        left.button("Lock in my guess", key="film_q_which_lock", type="primary", on_click=_lock,
                    args=(WHICH, f"{WHICH}_choice"))
        right.button("Skip the question", key="film_q_which_skip", on_click=st.session_state.__setitem__,
                     args=(WHICH, "skipped"))
        ask_room(settings)
    return False


def ask_room(settings):
    """A teacher with a room asks it this question; its answer is measured on the run, so the run
    must be trained first (before class, or with the projector off)."""
    if room_session.teacher_key() is None:
        return
    film = parts.service().cached(settings)
    if film is None:
        st.caption("To ask your room, train this run first (before class, or with the projector off): the "
                   "answer is measured on it.")
        return
    st.button("Ask my room this question", key="film_q_which_room", on_click=room_session.ask,
              args=(film_question.which_layer_question(film),),
              help="Every student in your room gets it, with the answer hidden until you reveal it.")


def reveal_which_head(film):
    guess = st.session_state.get(WHICH)
    if guess in (None, "skipped") or film.settings.layers != 2:
        return
    heads = film.induction_heads()
    layers = sorted({la for la, _ in heads})
    truth = list(LAYER_CHOICES)[film_question.which_layer_question(film).answer[0]]  # the room's answer key
    verdict = "Right" if guess == truth else "Not this time"
    if heads:
        names = ", ".join(f"layer {la} head {h}" for la, h in heads)
        why = (f"{verdict}: {names} reached an induction score of {INDUCTION_THRESHOLD:g} or more. To look for “the "
               "letter after an earlier copy of me”, a head must know at each position which letter came just before "
               "it, and the key of a position holds only its own letter and place until a layer below has copied the "
               "previous letter in: the previous-token head's work in layer 1. Elhage et al. (2021, “A Mathematical "
               "Framework for Transformer Circuits”) described this two-layer circuit; Olsson et al. (2022) studied "
               "how it forms.")
        if layers == [2]:
            why += " So the induction heads form in layer 2" + which_of_layer_2(len(heads), film.settings.heads)
    else:
        why = (f"{verdict}: in this run no head reached an induction score of {INDUCTION_THRESHOLD:g} or more. Try "
               "more training steps or another seed.")
    (st.success if guess == truth else st.info)(why, icon=":material/lightbulb:")


def which_of_layer_2(found: int, heads: int) -> str:
    """The end of "So the induction heads form in layer 2…": how many of its heads did, and what the seed decides."""
    if found == heads:
        return f": in this run all {heads} of its heads became induction heads."
    return (f": in this run {found} of its {heads} heads. Which of them become induction heads depends on the seed "
            "(the starting weights and the order of the data): another seed may pick others.")


def _truth(one, two) -> str:
    """Which of LOSS_CHOICES the two measured final losses (mean of the last 10 steps) make true."""
    l1, l2 = one.loss[-10:].mean(), two.loss[-10:].mean()
    if l1 >= training.CHANCE - AT_CHANCE_WITHIN:
        return "chance"
    return "same" if abs(l1 - l2) <= SAME_WITHIN else "between"


def one_layer(settings, film):
    """Question 2, asked of a two-layer film: the one-layer run is trained on reveal."""
    if settings.layers != 2:
        return
    st.subheader("What does the second layer buy?", anchor=False)
    guess = st.session_state.get(LOSS)
    if guess is None:
        with st.container(border=True):
            heads = f"{settings.heads} head{'s' if settings.heads != 1 else ''}"
            st.markdown(f"**Predict first.** Train the same model with **one** layer of {heads}, same steps, same "
                        "seed. What happens to its loss?")
            st.radio("Your guess", list(LOSS_CHOICES), format_func=LOSS_CHOICES.get, key=f"{LOSS}_choice")
            st.button("Lock in and train the one-layer model", key="film_q_loss_lock", type="primary", on_click=_lock,
                      args=(LOSS, f"{LOSS}_choice"))
        return
    single = parts.film_of(settings.replace(layers=1), "Train the one-layer model", key="film_train_one")
    if single is None:
        return
    truth = _truth(single, film)
    l1, l2 = single.loss[-10:].mean(), film.loss[-10:].mean()
    said = (f"Measured: one layer ends at a loss of {l1:.2f}, two layers at {l2:.2f} (chance: {training.CHANCE:.2f}); "
            f"the one-layer model has {'an' if single.induction_head() else 'no'} induction head. "
            f"{LOSS_CHOICES[truth]}.")
    (st.success if guess == truth else st.info)(("Right. " if guess == truth else "Not this time. ") + said,
                                                icon=":material/lightbulb:")
    st.caption(counting_said(single) + "With one layer of attention only, the key at each position holds that "
               "position's own letter and place, nothing about the letter before it; so no head can look for “the "
               "letter after an earlier copy of me”. A second layer can, once a head of the first has copied each "
               "letter's predecessor into it.")
    left, right = st.columns(2)
    with left:
        draw_loss(single, "One layer", "film_loss_one")
    with right:
        draw_loss(film, "Two layers", "film_loss_two")


def counting_said(single) -> str:
    """Why the one-layer loss falls at all, from the measured losses (induction films only)."""
    counting = single.counting_loss
    if counting is None:
        return ""
    l1 = single.loss[-10:].mean()
    said = (f"Why its loss falls from chance at all: counting the letters seen so far (predicting each letter by "
            f"how often it has appeared in the sequence) scores {counting:.2f} on the same training sequences, and "
            f"one layer ends at {l1:.2f}")
    if abs(l1 - counting) <= COUNTING_WITHIN:
        return said + ": one layer learns counts, not copying. "
    return said + ". "


def draw_loss(film, name: str, key: str):
    chart = training.loss_chart(np.arange(1, len(film.loss) + 1), film.loss, film.settings.steps,
                                formed=film.formed_at(), counting=film.counting_loss)
    st.markdown(f"**{name}**")
    draw(chart, key)
