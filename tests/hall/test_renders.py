"""Renders and rooms in the hall: the lab processes queue renders in Redis and the RQ render worker
makes them (tests/hall/fake_render.py in 6 s, or manim for the one real render); rooms live in
the same Redis. A render asked from two lab processes runs once; a killed render worker's job is
retried and its requester gets the video; while Redis hangs and restarts the lab keeps serving
lessons, says in words that renders and rooms are briefly unavailable, and works again after.

Where a test asks as a lab process would, it uses that process's own environment (read from
/proc), so it proves what the hall gave the process, not what the test assumed."""

import os
import signal
import time
from pathlib import Path

import av
import pytest

from animations.catalog import LECTURE
from animations.service import make_service
from classroom.questions import focus_question
from classroom.rooms import RoomsUnavailable, make_registry
from classroom.rooms.redis_rooms import RedisRooms
from core import AttentionConfig
from hall import redis_server
from tests.conftest import ARTIFACTS
from tests.hall import fake_render

pytestmark = pytest.mark.hall

SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
PIN = "428517"


def lab_env(hall, name: str) -> dict:
    """The environment that lab process `name` (or render worker, or Redis) runs with."""
    raw = Path(f"/proc/{hall.current()['processes'][name]}/environ").read_bytes()
    return dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)


def media(hall) -> Path:
    return Path(lab_env(hall, "lab1")["ATTENTION_LAB_MEDIA"])


def runs_log_size(hall) -> int:
    path = media(hall) / fake_render.RUNS
    return path.stat().st_size if path.is_file() else 0


def runs_since(hall, offset: int) -> dict[str, list[str]]:
    """key -> ['started', 'finished', ...] for the fake renders run after `offset`."""
    seen: dict[str, list[str]] = {}
    path = media(hall) / fake_render.RUNS
    for line in (path.read_bytes() if path.is_file() else b"")[offset:].decode().splitlines():
        event, key, _pid = line.split()
        seen.setdefault(key, []).append(event)
    return seen


def open_on(browser, hall, lab: str, text: str, path: str = ""):
    """A browser session pinned to lab process `lab` (HAProxy's cookie), on the lesson `text`."""
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    context.add_cookies([{"name": "SERVERID", "value": lab, "url": hall.info["url"]}])
    page = context.new_page()
    page.goto(f"{hall.info['url']}/{path}?text={text.replace(' ', '+')}")
    page.wait_for_selector(SETTLED, timeout=60_000)
    return context, page


def press_render(page):
    page.get_by_role("button", name="Render with my settings").click()


def test_a_teacher_on_one_lab_process_and_students_on_another_share_a_room(hall):
    teacher_side, student_side = (make_registry(lab_env(hall, lab)) for lab in ("lab1", "lab2"))
    assert isinstance(teacher_side, RedisRooms) and isinstance(student_side, RedisRooms)
    key = teacher_side.open(PIN, AttentionConfig().to_json())
    student_side.join(key.code, "session000001")
    question = focus_question(AttentionConfig(), 0, 1)
    number = teacher_side.ask(key, question)
    student_side.answer(key.code, "session000001", number, question.answer[0])
    assert teacher_side.teacher_view(key).current.answered == 1
    teacher_side.close(key)


def test_a_render_asked_from_two_lab_processes_runs_once(hall, browser):
    offset = runs_log_size(hall)
    sessions = [open_on(browser, hall, lab, "Two processes, one render.") for lab in ("lab1", "lab2")]
    try:
        for context, _ in sessions:
            assert {c["name"]: c["value"] for c in context.cookies()}["SERVERID"] in ("lab1", "lab2")
        for _, page in sessions:
            press_render(page)
        for _, page in sessions:
            page.locator("[data-testid=stSidebar] video").wait_for(timeout=60_000)
            assert page.locator("[data-testid=stException]").count() == 0
    finally:
        for context, _ in sessions:
            context.close()
    runs = runs_since(hall, offset)
    assert list(runs.values()) == [["started", "finished"]], f"one render for two requests: {runs}"
    (key,) = runs
    renders = sorted(d.name for d in (media(hall) / "renders").iterdir() if d.is_dir())
    assert renders.count(key) == 1 and not [d for d in renders if d.startswith(".")], renders


def test_a_killed_render_worker_has_its_job_retried_and_the_requester_gets_the_video(hall):
    """A whole worker killed mid-render (its render dies with it): RQ finds the job abandoned
    when its heartbeat lapses (jobs/worker.py: 5 s beats, 15 s margin, maintenance every 5 s) and
    re-queues it (Retry); the restarted worker renders it. About 30-40 s here."""
    offset = runs_log_size(hall)
    lab = make_service(lab_env(hall, "lab1"))
    job = lab.submit(LECTURE[0], AttentionConfig(text="Killed midway, made anyway."), session="kill-test")
    deadline = time.monotonic() + 60
    while job.done < 2:
        assert time.monotonic() < deadline and job.state != "failed", (job.state, job.error)
        time.sleep(0.2)
    worker = hall.current()["processes"]["render1"]
    os.killpg(worker, signal.SIGKILL)  # the worker's process group; its render is in a group of its own
    assert job.wait(120), f"not retried: see {hall.run_dir / 'render1.log'}"
    assert job.state == "done" and job.path.is_file(), job.error
    assert runs_since(hall, offset)[job.movie.parent.name] == ["started", "started", "finished"]
    assert hall.current()["processes"]["render1"] != worker, "the hall restarted the worker"
    lab.shutdown()


def redis_answers(hall) -> bool:
    url = hall.info["redis_url"]
    password, port = url.split("//:")[1].split("@")[0], int(url.rsplit(":", 1)[1].split("/")[0])
    return redis_server.ping(password, port)


def test_while_redis_hangs_and_restarts_the_lab_serves_lessons_says_so_and_renders_again(hall, browser):
    context, page = open_on(browser, hall, "lab2", "Redis restarts during class.")
    rooms = make_registry(lab_env(hall, "lab2"))
    redis = hall.current()["processes"]["redis"]
    try:
        os.kill(redis, signal.SIGSTOP)  # hung: every call times out
        press_render(page)
        page.get_by_text("Renders are briefly unavailable").wait_for(timeout=30_000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hall-redis-hung.png"))
        with pytest.raises(RoomsUnavailable, match="Rooms are briefly unavailable"):
            rooms.join("7K3M-Q9TX", "session000002")
        page.goto(f"{hall.info['url']}/masking?text=Redis+restarts+during+class.")  # a lesson needs no Redis
        page.wait_for_selector(SETTLED, timeout=60_000)
        page.locator(".vega-embed").first.wait_for(timeout=30_000)
        assert page.locator("[data-testid=stException]").count() == 0
        os.kill(redis, signal.SIGKILL)  # ... and restarted by the hall, empty
        deadline = time.monotonic() + 30
        while hall.current()["processes"].get("redis") in (None, redis) or not redis_answers(hall):
            assert time.monotonic() < deadline, "the hall did not restart Redis"
            time.sleep(0.3)
        press_render(page)
        page.locator("[data-testid=stSidebar] video").wait_for(timeout=90_000)
        assert page.locator("[data-testid=stException]").count() == 0
        page.screenshot(path=str(ARTIFACTS / "hall-redis-back.png"))
        key = rooms.open(PIN, AttentionConfig().to_json())
        make_registry(lab_env(hall, "lab1")).join(key.code, "session000002")
        rooms.close(key)
    finally:
        if hall.current()["processes"].get("redis") == redis:  # failed while Redis hung: let the hall go on
            os.kill(redis, signal.SIGCONT)
        context.close()


@pytest.mark.render
def test_a_real_render_through_the_queue_is_a_playable_video(hall):
    lab = make_service(lab_env(hall, "lab2"))
    job = lab.submit("scaling", fake_render.REAL, session="real", voice=None)  # silent: Piper is not the point
    assert job.wait(300), "the real render did not finish in 5 minutes"
    assert job.state == "done", f"{job.error}\n{job.log}"
    with av.open(str(job.path)) as container:
        assert next(container.decode(video=0), None) is not None
    lab.shutdown()
