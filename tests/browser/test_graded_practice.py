"""Graded practice in Chromium: a variant answered wrong (the named mistake shows), then
right, then a follow-up; a three-question mock interview run to its summary; the new
pages at 360 and 1280 px pass axe and are captured in var/screenshots/.

The test reads its numbers from the page's prompt, as a learner would, and computes the
answers with the formula (and the formula with the slip in it), not with the grader.
"""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from playwright.sync_api import expect

from calculators import grading
from calculators.model_catalog import MODELS
from tests.community.practice_data import POINTS, SPEC
from tests.factories import QuestionFactory, TrackFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = settings.VAR_DIR / "screenshots"
PROMPT = re.compile(r"does (.+?) need for (\d+) sequences of ([\d,]+) tokens")


def sign_in(context, live_server, user) -> None:
    from django.test import Client

    c = Client()
    c.force_login(user)
    cookie = c.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": live_server.url}]
    )


def kv_gb(prompt: str, seq_len: int | None = None, factor: float = 1.0) -> str:
    m = PROMPT.search(prompt)
    assert m, prompt
    model = next(p for p in MODELS.values() if p.name == m.group(1))
    tokens = (seq_len or int(m.group(3).replace(",", ""))) * int(m.group(2))
    total = 2 * model.layers * model.kv_heads * model.head_dim * 2 * tokens / 1e9
    return f"{total * factor:.6g}"


def axe_problems(page, name: str) -> list[str]:
    out = []
    for v in Axe().run(page).response["violations"]:
        if v["impact"] in {"serious", "critical"}:
            out.append(f"{name}: axe {v['impact']} {v['id']}: {v['help']}")
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    if overflow > 0:
        out.append(f"{name}: scrolls {overflow}px sideways")
    return out


@pytest.mark.parametrize("width", [360, 1280])
def test_wrong_then_right_then_a_follow_up(browser, live_server, width):
    question = QuestionFactory(
        kind="calculation", practice=SPEC, key_points=POINTS, title="How much KV cache?"
    )
    context = browser.new_context(viewport={"width": width, "height": 900})
    sign_in(context, live_server, UserFactory())
    page = context.new_page()
    problems: list[str] = []
    try:
        page.goto(live_server.url + question.get_absolute_url())
        page.get_by_test_id("try-numbers").click()
        prompt = page.get_by_test_id("prompt").inner_text()
        problems += axe_problems(page, f"numbers-{width}")

        # K and V counted once: half the right number
        page.get_by_label("Your answer").fill(kv_gb(prompt, factor=0.5))
        page.get_by_role("button", name="Check my answer").click()
        expect(page.get_by_test_id("grade")).to_contain_text("Not quite")
        expect(page.get_by_test_id("mistake")).to_have_text(
            grading.MISTAKES["kv-counted-once"].label
        )
        problems += axe_problems(page, f"graded-wrong-{width}")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"graded-wrong-{width}.png"), full_page=True)

        # right, given in GiB
        gib = float(kv_gb(prompt)) * 1e9 / 2**30
        page.get_by_label("Your answer").fill(f"{gib:.6g}")
        page.get_by_label("Unit").select_option("GiB")
        page.get_by_role("button", name="Try again").click()  # after a wrong answer
        expect(page.get_by_test_id("grade")).to_contain_text("Right")
        expect(page.locator(".calc-worked-steps")).to_be_visible()
        assert page.get_by_test_id("prompt").inner_text() == prompt  # same numbers

        # the interviewer's follow-up: 128k context
        page.get_by_test_id("follow-up").first.click()
        expect(page.get_by_test_id("prompt")).to_contain_text("Now at 128k context")
        page.get_by_label("Your answer").fill(kv_gb(prompt, seq_len=131072))
        page.get_by_role("button", name="Check my answer").click()
        expect(page.get_by_test_id("grade")).to_contain_text("Right")
        page.screenshot(path=str(SHOTS / f"graded-follow-up-{width}.png"), full_page=True)
        problems += axe_problems(page, f"graded-follow-up-{width}")
    finally:
        context.close()
    assert problems == []


@pytest.mark.parametrize("width", [360, 1280])
def test_a_three_question_mock_interview_and_its_summary(browser, live_server, width):
    track = TrackFactory(slug="mock-track", title="Mock track")
    calc = QuestionFactory(track=track, kind="calculation", practice=SPEC, key_points=POINTS)
    for _ in range(2):
        QuestionFactory(track=track, key_points=POINTS)
    QuestionFactory(track=track, access="premium", key_points=POINTS)  # never drawn
    context = browser.new_context(viewport={"width": width, "height": 800})
    sign_in(context, live_server, UserFactory())
    page = context.new_page()
    problems: list[str] = []
    try:
        page.goto(live_server.url + "/practice/mock/")
        page.get_by_label("Track").select_option("mock-track")
        page.get_by_label("Questions", exact=True).select_option("3")
        page.get_by_role("button", name="Start").click()
        seen = []
        for n in range(1, 4):
            expect(page.get_by_test_id("mock-question")).to_contain_text(f"Question {n} of 3")
            expect(page.locator("#mock-clock")).to_have_text(re.compile(r"^\d+:\d\d$"))
            title = page.locator("main h1").inner_text()
            seen.append(title)
            if title == calc.title:
                prompt = page.get_by_test_id("prompt").inner_text()
                page.get_by_label("Your answer", exact=True).fill(kv_gb(prompt, factor=8))
            page.get_by_label("Your answer, as you would say it").fill(f"My answer {n}")
            if n == 1:
                problems += axe_problems(page, f"mock-question-{width}")
                page.screenshot(path=str(SHOTS / f"mock-question-{width}.png"), full_page=True)
                # the clock stays in view while the learner writes at the bottom
                page.get_by_role("button", name="Next question").scroll_into_view_if_needed()
                box = page.locator("#mock-clock").bounding_box()
                assert box is not None and 0 <= box["y"] <= 800 - box["height"], box
            button = "Finish answering" if n == 3 else "Next question"
            page.get_by_role("button", name=button).click()
        assert calc.title in seen and len(set(seen)) == 3
        expect(page.locator("main h1")).to_have_text("Which key points did you make?")
        boxes = page.locator("input[type=checkbox]")
        assert boxes.count() == 3 * len(POINTS)
        boxes.nth(0).check()
        boxes.nth(1).check()
        problems += axe_problems(page, "mock-key-points")
        page.get_by_role("button", name="See my summary").click()
        summary = page.get_by_test_id("mock-summary")
        expect(summary).to_be_visible()
        expect(summary).to_contain_text("2 of 3")
        expect(summary).to_contain_text(grading.MISTAKES["bits-for-bytes"].label)
        # the debrief: the learner's number beside the right one, points made and missed
        debrief = page.get_by_test_id("mock-debrief")
        expect(debrief).to_contain_text("Your number")
        expect(debrief).to_contain_text("The right number")
        expect(debrief).to_contain_text("My answer 1")
        assert debrief.locator(".point-made").count() == 2
        page.screenshot(path=str(SHOTS / f"mock-summary-{width}.png"), full_page=True)
        problems += axe_problems(page, f"mock-summary-{width}")
        page.goto(live_server.url + "/practice/mock/")
        expect(page.locator("table")).to_contain_text("Finished")
    finally:
        context.close()
    assert problems == []
