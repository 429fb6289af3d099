"""A student's phone, in Chromium at 390×844 with touch. In a classroom room: join with the code, reach the
question in one tap from a lesson page, answer three kinds of question, see each reveal, leave. The charts
too dense for a phone: tests/dashboard/test_phone_view_browser.py.

On every screen: each target the student taps is at least 44 px high, text boxes use 16 px type (iOS
zooms into a smaller one), nothing scrolls sideways and no chart text runs past its chart. The teacher
is a desktop browser on the same server. Screenshots of the phone go to test-artifacts/phone-*.png."""

from urllib.parse import parse_qs, urlparse

import pytest

from tests.conftest import ARTIFACTS
from tests.waits import charts_drawn, still

pytestmark = pytest.mark.browser
SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
WAIT = 20_000  # ms: a poll every 1.5 s, on a busy 2-core machine
WIDTH, HEIGHT, TAP = 390, 844, 44
PILLS = "[data-testid=stButtonGroup] button:not([data-variant=segmented_control])"

# Every chart text (titles, labels, marks' text) whole, inside its chart's box: Vega clips what runs past it.
_CUT_TEXTS = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].flatMap(chart => {
  const c = chart.getBoundingClientRect();
  return [...chart.querySelectorAll('svg text')].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect();
    const cut = r.left < c.left - 2 || r.right > c.right + 2  // 2 px: a rotated glyph's box at the edge
        || t.textContent.includes("…");  // Vega's own cut, at a text's limit (a title's lines are one text)
    const at = `${Math.round(r.left - c.left)}..${Math.round(r.right - c.left)} of ${Math.round(c.width)} px`;
    return cut ? `${t.textContent} (${at})` : null;
  }).filter(Boolean);
})"""


def shot(page, name: str):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"phone-{name}.png"))


def fits_the_width(page, where: str):
    """No sideways scrolling, and no chart text cut off at the chart's edge."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= WIDTH, f"{where}: the page is {width} px wide on a {WIDTH} px screen"
    cut = page.evaluate(_CUT_TEXTS)
    assert cut == [], f"{where}: chart texts cut off: {cut}"


def tall(locator, what: str) -> dict:
    """A tap target at least 44 px high (its box once it has stopped moving)."""
    box = still(locator, timeout=WAIT)
    assert box["height"] >= TAP - 0.5, f"{what}: {box['height']:.0f} px high"
    return box


def closed(page):
    """The sidebar has folded away (it slides out: wait until it no longer covers the page)."""
    page.wait_for_function("() => { const s = document.querySelector('[data-testid=stSidebar]'); "
                           "const r = s && s.getBoundingClientRect(); return !s || (s.dataset.collapsed === 'true' "
                           "&& r.right <= 1); }", polling=100, timeout=WAIT)


def type_px(locator) -> float:
    return locator.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")


def settled(page):
    """The page's run has ended and its CSS (dashboard/display.py: a style element the run draws) is in."""
    page.wait_for_selector(SETTLED, timeout=60_000)
    page.wait_for_function("[...document.querySelectorAll('style')].some(s => s.textContent.includes("
                           "'@media (max-width: 640px)'))", polling=100, timeout=WAIT)


def ask(teacher, kind: str, words: str):
    """The teacher picks a kind of question and asks it, once its prompt is on the screen (a click on Ask
    during the rerun the pick started could be lost)."""
    teacher.get_by_role("radio", name=kind).click()
    teacher.locator("[data-testid=stMain] strong").filter(has_text=words).wait_for(timeout=WAIT)
    settled(teacher)
    teacher.get_by_role("button", name="Ask the class").click()


def send_then_reveal(phone, teacher, choice, kind: str):
    """The student taps `choice` and Send; the teacher reveals; the phone's reveal fits its width."""
    main = phone.locator("[data-testid=stMain]")
    choice.tap()
    main.get_by_role("button", name="Send my answer").tap()
    main.get_by_text("Sent:").wait_for(timeout=WAIT)
    teacher.get_by_role("button", name="Reveal the answer").click()
    main.get_by_text("The answer:").wait_for(timeout=WAIT)
    charts_drawn(phone, timeout=WAIT)
    fits_the_width(phone, f"the {kind} question's reveal")


def test_a_student_on_a_phone_joins_answers_three_questions_and_leaves(browser, lab_server):
    url = lab_server
    desk = browser.new_context(viewport={"width": 1500, "height": 1000})
    teacher = desk.new_page()
    teacher.goto(f"{url}/room")
    settled(teacher)
    teacher.get_by_role("textbox", name="Choose a PIN").fill("135790")
    teacher.get_by_role("button", name="Open a room").click()
    teacher.wait_for_url("**/room?code=*", timeout=WAIT)
    code = parse_qs(urlparse(teacher.url).query)["code"][0]

    hand = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, is_mobile=True, has_touch=True)
    phone = hand.new_page()
    phone.goto(f"{url}/room")
    settled(phone)
    main = phone.locator("[data-testid=stMain]")
    box = main.get_by_role("textbox", name="Room code")
    for name in ("Room code", "Choose a PIN"):  # the student's box, and the teacher's on the same page
        assert type_px(main.get_by_role("textbox", name=name)) >= 16, f"the {name} box's type is too small"
    tall(main.get_by_test_id("stTextInputRootElement").filter(has=phone.get_by_role("textbox", name="Room code")),
         "the code box")
    tall(main.get_by_role("button", name="Join the room"), "Join the room")
    fits_the_width(phone, "the Room page")
    shot(phone, "join")
    box.tap()
    box.fill(code)
    main.get_by_role("button", name="Join the room").tap()
    follow = main.get_by_test_id("stCheckbox").filter(has_text="Follow the teacher's lesson").locator("label")
    tall(follow, "the follow switch")

    # The sidebar on a phone: its page links, and leaving, apart from the rest.
    phone.get_by_test_id("stExpandSidebarButton").tap()
    sidebar = phone.locator("[data-testid=stSidebar]")
    links = sidebar.get_by_test_id("stSidebarNavLink")
    for i in range(links.count()):
        tall(links.nth(i), f"the page link {links.nth(i).inner_text()!r}")
    links.filter(has_text="Masking").tap()
    phone.wait_for_url("**/masking*", timeout=WAIT)
    settled(phone)
    tall(sidebar.get_by_role("button", name="Leave the room"), "the sidebar's Leave the room")
    closed(phone)  # the page the student chose, not the sidebar over it
    fits_the_width(phone, "the Masking page")

    # A question, one tap away from a lesson page; the sidebar stays closed. The student's joining reran the
    # teacher's page: Ask is clicked once that run has ended, as `ask` does for the next questions.
    settled(teacher)
    teacher.get_by_role("button", name="Ask the class").click()
    teacher.get_by_text("Question 1:").first.wait_for(timeout=WAIT)  # asked: the teacher's screen counts its answers
    bar = phone.get_by_role("link", name="Question 1 is open: answer it")
    bar.wait_for(timeout=WAIT)
    tall(bar, "the question's bar")
    fits_the_width(phone, "the Masking page with a question")
    shot(phone, "lesson-question-bar")
    bar.tap()
    main.get_by_text("Question 1:").wait_for(timeout=WAIT)
    settled(phone)
    closed(phone)
    pills = main.locator(PILLS)
    for i in range(pills.count()):
        tall(pills.nth(i), f"the answer pill {pills.nth(i).inner_text()!r}")
    send = main.get_by_role("button", name="Send my answer")
    assert tall(send, "Send my answer")["y"] + TAP <= HEIGHT, "Send is below the first screen"
    shot(phone, "question")
    send_then_reveal(phone, teacher, pills.nth(1), "focus")
    shot(phone, "reveal")

    # A "change" question: its choices are rows of a radio, apart from each other.
    ask(teacher, "What happens after a change?", "what happens to the largest weight")
    main.get_by_text("Question 2:").wait_for(timeout=WAIT)
    rows = main.get_by_test_id("stRadioOption")
    rows.first.wait_for(timeout=WAIT)
    boxes = [tall(rows.nth(i), f"the radio row {rows.nth(i).inner_text()!r}") for i in range(rows.count())]
    gaps = [b["y"] - (a["y"] + a["height"]) for a, b in zip(boxes, boxes[1:], strict=False)]
    assert len(boxes) > 1 and min(gaps) >= 4, f"radio rows {gaps} px apart: {boxes}"
    fits_the_width(phone, "the change question")
    shot(phone, "change-question")
    send_then_reveal(phone, teacher, rows.first, "change")

    # A "blocked" question: its reveal chart's title was cut off at 390 px.
    ask(teacher, "Which rows are fully blocked?", "which query rows are fully blocked")
    main.get_by_text("Question 3:").wait_for(timeout=WAIT)
    pills.first.wait_for(timeout=WAIT)
    send_then_reveal(phone, teacher, pills.last, "blocked")
    shot(phone, "blocked-reveal")

    # Leaving asks first: the first tap only opens the question.
    leave = main.get_by_role("button", name="Leave the room")
    tall(leave, "Leave the room")
    leave.tap()
    sure = phone.get_by_role("button", name="Yes, leave the room")
    tall(sure, "Yes, leave the room")
    assert main.get_by_role("heading", name=f"Room {code[:4]}-{code[4:]}").is_visible(), "left at the first tap"
    shot(phone, "leave")
    sure.tap()
    main.get_by_role("textbox", name="Room code").wait_for(timeout=WAIT)
    for p in (teacher, phone):
        assert p.locator("[data-testid=stException]").count() == 0
    hand.close()
    desk.close()
