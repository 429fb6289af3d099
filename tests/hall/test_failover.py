"""A student's browser in the hall: one process serves the whole session; when that process is
killed mid-class the session moves to the other, keeps its lesson, and the hall restarts the dead one.

Which process served each request is read from HAProxy's log (`labs/<server>` per request)."""

import os
import re
import signal
import time
import urllib.request

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from dashboard.lesson.sidebar import temperatures
from tests.conftest import ARTIFACTS
from tests.waits import Frames, reconnected

pytestmark = [pytest.mark.hall, pytest.mark.browser]

SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
LESSON = "Lecture halls need many processes."


def proxy_log(hall) -> str:
    return (hall.run_dir / "haproxy.log").read_text(errors="replace")


def requests_since(hall, offset: int) -> list[tuple[str, str, str, str]]:
    """(server, status, path, cookie sent) of each request HAProxy logged after `offset`."""
    rows = []
    for line in proxy_log(hall)[offset:].splitlines():
        parts = line.split()
        if len(parts) == 7 and parts[2].startswith("labs/"):
            rows.append((parts[2].removeprefix("labs/"), parts[3], parts[5], parts[6].removeprefix("cookie=")))
    return rows


def open_lesson(browser, hall):
    context = browser.new_context(viewport={"width": 1600, "height": 1400}, accept_downloads=True)
    page = context.new_page()
    page.goto(f"{hall.info['url']}/?text={LESSON.replace(' ', '+')}")
    page.wait_for_selector(SETTLED, timeout=60_000)
    return context, page


def served_by(context) -> str:
    return next(c["value"] for c in context.cookies() if c["name"] == "SERVERID")


def temperature(page) -> str:
    return page.evaluate("() => new URL(location.href).searchParams.get('temperature') || '1.0'")


def move_temperature(page, expected: str, timeout: float = 30_000):
    """One keyboard step of the temperature slider; waits for the rerun that mirrors it in the URL."""
    slider = page.locator("[data-testid=stSlider]").filter(has_text="Softmax temperature").get_by_role("slider")
    slider.focus()
    slider.press("ArrowLeft")
    page.wait_for_function(f"() => new URL(location.href).searchParams.get('temperature') === '{expected}'",
                           polling=100, timeout=timeout)
    page.wait_for_selector(SETTLED, timeout=30_000)


def move_head(page, timeout: float):
    """A click on head 2 of page 1's head buttons, which live in the lesson's fragment; waits for
    `head=2` in the URL."""
    buttons = page.locator("[data-testid=stButtonGroup]").filter(has_text="Head to inspect")
    buttons.get_by_role("radio", name="2", exact=True).click()
    page.wait_for_function("() => new URL(location.href).searchParams.get('head') === '2'", polling=100,
                           timeout=timeout)
    page.wait_for_selector(SETTLED, timeout=30_000)


def step(value: str) -> str:
    """The temperature one keyboard step lower on the sidebar's select slider, as the URL writes it."""
    options = temperatures(float(value))
    return str(options[options.index(float(value)) - 1])


def test_a_session_stays_on_one_process_across_reruns_and_media(hall, browser):
    offset = len(proxy_log(hall))
    context, page = open_lesson(browser, hall)
    try:
        server = served_by(context)
        move_temperature(page, "0.7")
        move_temperature(page, "0.5")
        page.get_by_role("button", name="Export").last.click()
        button = page.get_by_role("button", name="Numbers (CSV)")
        button.wait_for(timeout=20_000)
        with page.expect_download(timeout=30_000) as download:
            button.click()
        assert open(download.value.path(), encoding="utf-8").read().count("\n") > 1, "the CSV came back whole"
    finally:
        context.close()
    rows = requests_since(hall, offset)
    paths = [path for _, _, path, _ in rows]
    assert "/_stcore/stream" in paths and any(p.startswith("/media/") for p in paths), paths
    assert {s for s, _, _, _ in rows} == {server}, f"requests of one session went to several processes: {rows}"
    assert all(cookie == f"SERVERID={server}" for _, _, _, cookie in rows[1:]), "the cookie names the process"
    failed = [row for row in rows if row[1] not in ("200", "101", "304")]  # 304: the browser's cached page, still valid
    assert not failed, f"requests of the session that failed: {failed}"


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def routed_to(hall, server: str) -> bool:
    """A request that carries `server`'s cookie is served there (else HAProxy redispatches it and
    names the process that served it in a new cookie)."""
    request = urllib.request.Request(f"{hall.info['url']}/_stcore/health", headers={"Cookie": f"SERVERID={server}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return "SERVERID=" not in (response.headers.get("Set-Cookie") or "")


def test_killing_a_lab_process_moves_its_students_and_the_hall_restarts_it(hall, browser):
    context, page = open_lesson(browser, hall)
    try:
        victim = served_by(context)
        before = hall.current()
        with reconnected(page):  # to the other process (or to the killed one's successor)
            os.killpg(before["processes"][victim], signal.SIGKILL)  # the process and its script threads, at once
            killed_at = time.monotonic()
        # The old page stays on screen; the student's next moves run on the other process. The first
        # one runs the whole app there (dashboard/serve.py: the new process holds none of the page's
        # fragments), which draws the widgets from the URL over the value the browser sent, so that
        # move is lost; from the next one on, the controls inside the lesson's fragment work too, as
        # the head buttons show. Hence up to three tries.
        for _ in range(3):
            try:
                move_head(page, timeout=6_000)
                break
            except PlaywrightTimeout:
                continue
        else:
            pytest.fail("three clicks on the head buttons (in the lesson fragment) after the switch changed nothing")
        # A live process serves the session now: the other one, or (when the hall brought the killed
        # one back before the browser reconnected: it restarts a dead process after 1 s) its successor.
        now_on = served_by(context)
        assert now_on != victim or hall.current()["processes"][victim] != before["processes"][victim]
        # The lesson came back from the URL: the new process mirrors it there (only settings
        # that differ from the defaults are kept in the URL, so `text` is there only if it kept it).
        assert page.evaluate("() => new URL(location.href).searchParams.get('text')") == LESSON
        assert page.get_by_role("textbox", name="Text to attend over").input_value() == LESSON
        assert page.locator("[data-testid=stException]").count() == 0
        move_temperature(page, step(temperature(page)))  # and the sidebar works at once
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hall-after-failover.png"))
    finally:
        context.close()
    wait_until_back(hall, victim, before["processes"][victim], killed_at)


def wait_until_back(hall, victim: str, old_pid: int, killed_at: float):
    """A new process on the killed one's port, and HAProxy sends that process's students to it again."""
    port = hall.info["labs"][victim]

    def back():
        restarted = hall.current()["processes"].get(victim) not in (None, old_pid)
        return restarted and healthy(port) and routed_to(hall, victim)

    while not back() and time.monotonic() - killed_at < 90:
        time.sleep(0.5)
    assert back(), f"{victim} was not restarted, or HAProxy did not take it back: see {hall.run_dir}"


def question_shown(hall, phone, screen, heading: str, asked: float, phone_frames, screen_frames):
    """Wait for the question the teacher has just asked on the phone; if it never shows, say which side
    stopped: the teacher's screen (its click ran, or not), each page's websocket since the click (the
    phone's timer still asking its server for runs, and hearing back), and HAProxy's word on the labs (a
    lab it marks down has its websockets cut: on-marked-down shutdown-sessions)."""
    try:
        phone.get_by_text(heading).wait_for(timeout=20_000)
    except PlaywrightTimeout:
        teacher_has_it = screen.get_by_text(heading).count() > 0
        states = [line[:90] for line in proxy_log(hall).splitlines() if line.startswith("Server labs/")]
        raise AssertionError(
            f"{heading} not on the phone 20 s after the click; on the teacher's screen: {teacher_has_it}. "
            f"Phone: {phone_frames.since(asked)}; teacher: {screen_frames.since(asked)}. HAProxy, this hall's "
            f"labs: {states}. The phone shows: {phone.locator('[data-testid=stMain]').inner_text()[:300]!r}") from None


def test_a_student_s_room_page_polls_on_after_its_process_is_killed_and_keeps_one_vote(hall, browser):
    """A student answers on the Room page; their process is killed. The phone must keep showing the
    answer sent, bring the teacher's next round without the student touching anything, and count
    one student with one vote (the seat in the phone's cookie, never in its address: room_session.keep_seat).

    The new process holds none of the page's fragments. What runs the whole page there (which
    joins the room again from the address): Streamlit's browser code when it asks for a full run
    on reconnecting, which it did in every run here (2026-12-01); or, when the first request is
    the poll itself, dashboard/serve.py."""
    url = hall.info["url"]
    student = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    teacher = browser.new_context(viewport={"width": 1500, "height": 1100})
    victim = before = None
    try:
        phone = student.new_page()
        phone_frames = Frames(phone)
        phone.goto(f"{url}/room")
        phone.wait_for_selector(SETTLED, timeout=60_000)
        victim = served_by(student)
        # the teacher's screen on the other process, which stays up
        teacher.add_cookies(
            [{"name": "SERVERID", "value": next(n for n in hall.info["labs"] if n != victim), "url": url}]
        )
        screen = teacher.new_page()
        screen_frames = Frames(screen)
        screen.goto(f"{url}/room")
        screen.wait_for_selector(SETTLED, timeout=60_000)
        assert served_by(teacher) != victim
        screen.get_by_role("textbox", name="Choose a PIN").fill("135790")
        screen.get_by_role("button", name="Open a room").click()
        screen.wait_for_url("**/room?code=*", timeout=20_000)
        phone.get_by_role("textbox", name="Room code").fill(screen.url.rsplit("code=", 1)[1])
        phone.get_by_role("button", name="Join the room").click()
        phone.get_by_text("Waiting for the teacher's question").wait_for(timeout=20_000)
        asked = time.monotonic()
        screen.get_by_role("button", name="Ask the class").click()
        question_shown(hall, phone, screen, "Question 1:", asked, phone_frames, screen_frames)
        phone.locator("[data-testid=stButtonGroup] button", has_text="2 cat").click()  # a pill
        phone.get_by_role("button", name="Send my answer").click()
        phone.get_by_text(re.compile(r"Sent: [A-Z]+\. 2 cat")).wait_for(timeout=20_000)

        before = hall.current()["processes"][victim]
        with reconnected(phone):  # the phone's polls now go to the other process
            os.killpg(before, signal.SIGKILL)
            killed_at = time.monotonic()
        asked = time.monotonic()
        screen.get_by_role("button", name="Ask again (after discussion)").click()
        # the student did nothing
        question_shown(hall, phone, screen, "Question 2:", asked, phone_frames, screen_frames)
        phone.locator("[data-testid=stButtonGroup] button", has_text="3 sat").click()
        phone.get_by_role("button", name="Send my answer").click()
        phone.get_by_text(re.compile(r"Sent: [A-Z]+\. 3 sat")).wait_for(timeout=20_000)
        # both rounds' tallies (before and after discussion), one student, joined once
        expect(screen.get_by_text("1 answered of 1 present.")).to_have_count(2, timeout=20_000)
        assert "1 joined" in screen.locator("[data-testid=stMain]").inner_text(), "the phone came back as itself"
        for page in (phone, screen):
            assert page.locator("[data-testid=stException]").count() == 0
    finally:
        student.close()
        teacher.close()
    if before is not None:  # the hall must be whole again for the tests after this one
        wait_until_back(hall, victim, before, killed_at)
