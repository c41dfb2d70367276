"""A learner walks home, curriculum, track, question and concept in Chromium."""

import pytest
from django.conf import settings
from playwright.sync_api import expect

from questions.content_io import import_content
from tests.conftest import DESKTOP, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_walk_home_to_concept(browser, live_server, viewport, artifacts_dir):
    import_content(settings.CONTENT_DIR)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    name = "phone" if viewport is PHONE else "desktop"

    page.goto(live_server.url + "/")
    assert "Inferview" in page.title()
    page.screenshot(path=str(artifacts_dir / f"home-{name}.png"), full_page=True)

    page.get_by_role("link", name="Curriculum").first.click()
    page.wait_for_url("**/curriculum/")
    expect(page.get_by_role("heading", name="Curriculum", level=1)).to_be_visible()
    page.screenshot(path=str(artifacts_dir / f"curriculum-{name}.png"), full_page=True)

    page.locator(".track-card a").first.click()
    page.wait_for_url("**/tracks/*/")
    assert page.locator("ol.question-list li").count() >= 12
    page.screenshot(path=str(artifacts_dir / f"track-{name}.png"), full_page=True)

    page.locator(".question-row-title").first.click()
    page.wait_for_url("**/tracks/*/1/*/")
    # question 1 is open to everyone: folded until the reader reveals it (try first)
    expect(page.locator("#answer-text")).to_be_hidden()
    page.get_by_text("Reveal the answer", exact=True).click()
    expect(page.locator("#answer-text")).to_be_visible()
    expect(page.get_by_role("heading", name="The concepts behind this question")).to_be_visible()
    page.screenshot(path=str(artifacts_dir / f"question-{name}.png"), full_page=True)

    page.locator(".concept-card-title").first.click()
    page.wait_for_url("**/concepts/*/")
    expect(page.get_by_text("Questions that use this concept")).to_be_visible()
    page.screenshot(path=str(artifacts_dir / f"concept-{name}.png"), full_page=True)

    # nothing overflows sideways on a phone
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"] + 1
    assert errors == []
    context.close()
