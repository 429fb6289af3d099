"""The handout as a job (classroom/handout_service.py, issue 47 item 2): built once per deck file and lab version,
off the caller's thread; a request while it builds joins the build, a later one gets the file; an edited deck is
built again and its old file goes; a failed save is a sentence."""

import threading

import pytest

from classroom.decks import default_deck
from classroom.handout_service import HandoutService
from jobs import Requester

TEACHER, OTHER = Requester("s1", "127.0.0.11", teacher=True), Requester("s2", "127.0.0.12", teacher=True)


class Builds:
    """build_handout's stand-in: counts its calls, each held until `go` is set."""

    def __init__(self):
        self.count, self.go, self.started = 0, threading.Event(), threading.Event()

    def __call__(self, deck) -> str:
        self.count += 1
        self.started.set()
        assert self.go.wait(60)
        return f"<!doctype html><title>{deck.title}</title>"


@pytest.fixture
def deck(deck_names):
    return default_deck(deck_names)


@pytest.fixture
def builds():
    return Builds()


@pytest.fixture
def service(tmp_path, builds):
    made = HandoutService(tmp_path, build=builds)
    yield made
    made.shutdown()


def test_two_requests_while_it_builds_share_one_build_off_the_callers_thread(service, builds, deck):
    first = service.submit(deck, (1, 2), TEACHER)
    assert builds.started.wait(60) and first.active, "submit returned while the build runs in its thread"
    second = service.submit(deck, (1, 2), OTHER)
    assert second is first and service.queue_length() == 1
    builds.go.set()
    assert first.wait(60) and first.state == "done", first.error
    assert builds.count == 1
    assert first.result.read_text() == f"<!doctype html><title>{deck.title}</title>"
    third = service.submit(deck, (1, 2), Requester("s3", "127.0.0.13", teacher=True))
    assert third.state == "done" and third.result == first.result and builds.count == 1


def test_another_process_finds_the_file_and_an_edited_deck_is_built_again(service, builds, tmp_path, deck):
    builds.go.set()
    old = service.submit(deck, (1, 2), TEACHER)
    assert old.wait(60) and old.state == "done"
    again = HandoutService(tmp_path, build=builds)  # a hall's other lab process, or the lab restarted
    try:
        assert again.cached(deck, (1, 2)) == old.result
        assert again.submit(deck, (1, 2), OTHER).state == "done" and builds.count == 1
        assert again.cached(deck, (3, 4)) is None, "the deck file changed: another handout"
        new = again.submit(deck, (3, 4), OTHER)
        assert new.wait(60) and new.state == "done" and builds.count == 2
        assert new.result.is_file() and not old.result.exists(), "one handout kept per deck"
        assert {p.name for p in (tmp_path / "handouts").iterdir()} == {new.result.name}
    finally:
        again.shutdown()


def test_a_handout_that_cannot_be_saved_fails_with_a_sentence(service, builds, tmp_path, deck):
    builds.go.set()
    (tmp_path / "handouts").write_text("a file where the folder goes")
    job = service.submit(deck, (1, 2), TEACHER)
    assert job.wait(60) and job.state == "failed"
    assert job.error.startswith("The handout could not be saved")


def test_a_handout_made_before_the_decks_runs_were_trained_is_made_again_after(service, tmp_path, deck):
    """Its film questions said "not trained yet": once `make lecture` has trained a run, it is another file."""
    from classroom.deck_questions import films_needed

    runs = [settings for s in deck.screens for settings in films_needed(s)]
    assert runs
    before = service.task.request(deck, (1, 2)).path
    (tmp_path / "films" / runs[0].key()).mkdir(parents=True)
    (tmp_path / "films" / runs[0].key() / "film.json").write_text("{}")
    assert service.task.request(deck, (1, 2)).path != before
