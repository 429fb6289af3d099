"""Real films (core.learn.train), trained once per test process and shared by the files that read
them: tests/core/test_learn.py, tests/core/test_learn_claims.py, tests/dashboard/test_watch_learn.py and
tests/classroom/test_deck_giveaways.py need the default film and its one-layer twin, and the scheduler
(SHARED_SET_UP in tests/conftest.py) runs them on one worker. Sharing changes no number: the same settings
record the same film, bit for bit (test_the_same_settings_record_the_same_film trains twice to prove it).
Tests read these films and never change them.

`train` trains with core.film.THREADS torch threads whatever the process has (a test process has
one: tests/conftest.py), so these are the films a class sees on this machine. Another CPU, or another
kernel path of this one, trains other films of the same settings: the docs state ranges these fall in
(docs/watch-it-learn.md), and the page states its own film's figures.
"""

import functools

from core.film import Film, LearnSettings
from core.learn import train


@functools.cache
def trained(settings: LearnSettings) -> Film:
    return train(settings)
