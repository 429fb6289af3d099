"""The render queue against a class that leaves: a queued render whose page was closed is not made,
a full queue says how long its work takes, and a stopping server starts nothing more."""

import threading

import pytest

from animations.catalog import RENDER_SECONDS
from animations.render import cache_dir
from animations.service import ABANDONED, STOPPING, RenderService
from core import AttentionConfig
from jobs import QueueFull

LESSON = AttentionConfig(source="random", seq_len=3, d_model=4, num_heads=1)


class HeldRender:
    """A render that lasts until the test lets it finish; records which lessons were rendered."""

    def __init__(self):
        self.go, self.calls, self.started = threading.Event(), [], threading.Event()

    def __call__(self, scene, cfg, quality, on_progress=None, timeout=None, media_dir=None, voice=None):
        self.calls.append(cfg.seed)
        self.started.set()
        assert self.go.wait(30), "the test never let the render finish"
        folder = cache_dir(scene, cfg, quality, media_dir, voice)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{scene}.mp4").write_bytes(b"\0" * 100)
        return folder / f"{scene}.mp4"


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def service(tmp_path, fake, clock, **kw):
    return RenderService(media_dir=tmp_path, workers=1, render_fn=fake, abandon_after=60, clock=clock, **kw)


def test_a_queued_render_whose_page_stopped_asking_is_not_made(tmp_path):
    fake, clock = HeldRender(), Clock()
    lab = service(tmp_path, fake, clock)
    try:
        running = lab.submit("scores", LESSON.replace(seed=1), session="a", voice=None)
        closed = lab.submit("scores", LESSON.replace(seed=2), session="b", voice=None)
        open_ = lab.submit("scores", LESSON.replace(seed=3), session="c", voice=None)
        assert fake.started.wait(30)
        assert lab.waiting(closed) == 1 and lab.waiting(open_) == 2  # the running one; then both before it
        clock.now += 61  # the page of `closed` was closed: it stopped polling; `open_`'s page still polls
        assert lab.waiting(open_) == 2
        fake.go.set()
        assert running.wait(30) and closed.wait(30) and open_.wait(30)
        assert (running.state, closed.state, open_.state) == ("done", "failed", "done")
        assert closed.error == ABANDONED
        assert fake.calls == [1, 3]
    finally:
        fake.go.set()
        lab.shutdown()


def test_a_full_queue_gives_back_the_places_of_closed_pages_and_says_its_wait(tmp_path):
    fake, clock = HeldRender(), Clock()
    lab = service(tmp_path, fake, clock, max_queued=2)
    try:
        lab.submit("scores", LESSON.replace(seed=1), session="a", voice=None)
        waiting = lab.submit("masking", LESSON.replace(seed=2), session="b", voice=None)
        assert fake.started.wait(30)
        scores, masking = RENDER_SECONDS["low"]["scores"], RENDER_SECONDS["low"]["masking"]
        assert (scores, masking) == (28, 28)  # so: 56 s of work, the first place frees after 28 s
        with pytest.raises(QueueFull) as full:
            lab.submit("scores", LESSON.replace(seed=3), session="c", voice=None)
        assert str(full.value) == ("The render queue is full: 2 videos, about 1 min of rendering for 1 renderer. "
                                   "A place frees in about 30 s; a video asked for then starts after about 30 s more.")
        clock.now += 61  # nobody polled `waiting` for a minute: its page was closed
        third = lab.submit("scores", LESSON.replace(seed=3), session="c", voice=None)
        assert waiting.state == "failed" and waiting.error == ABANDONED and third.state == "queued"
    finally:
        fake.go.set()
        lab.shutdown()


def test_a_stopped_service_drops_its_queue_and_starts_nothing(tmp_path):
    fake, clock = HeldRender(), Clock()
    lab = service(tmp_path, fake, clock)
    running = lab.submit("scores", LESSON.replace(seed=1), session="a", voice=None)
    queued = [lab.submit("scores", LESSON.replace(seed=s), session=f"s{s}", voice=None) for s in (2, 3, 4)]
    assert fake.started.wait(30)
    lab.shutdown(wait=False)
    assert all(j.state == "failed" and j.error == STOPPING for j in queued)
    fake.go.set()
    assert running.wait(30)
    lab.shutdown(wait=True)  # the render threads have ended
    assert fake.calls == [1], "a queued render started after the shutdown"
    with pytest.raises(QueueFull, match="The server is stopping"):
        lab.submit("scores", LESSON.replace(seed=5), session="z", voice=None)
