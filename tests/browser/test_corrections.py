"""Report a mistake, end to end in Chromium (issue 27): a free learner selects a sentence of
an open answer and reports a typo (the selection fills the passage); an author marks it
fixed in admin, first without a note (refused), then with one; the page lists it under
"What changed", its "Updated" month moves, and the reporter's email is in the outbox.
Screenshots: ``var/screenshots/correction-form.png`` and ``correction-what-changed.png``."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.core import mail
from django.utils import timezone
from playwright.sync_api import expect

from inferview.celery import app as celery_app
from inferview.community.corrections.models import Correction
from inferview.community.practice import services as practice_services
from questions.roles import ensure_authors_group
from tests.factories import QuestionFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = settings.VAR_DIR / "screenshots"
SENTENCE = "Decode is bound by memory bandwith, not by arithmetic."
LONG_AGO = timezone.now() - dt.timedelta(days=400)


@pytest.fixture
def eager():
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before


def test_a_reported_typo_is_fixed_and_shown(browser, live_server, signed_in_page, eager):
    SHOTS.mkdir(parents=True, exist_ok=True)
    question = QuestionFactory(
        access="open",
        title="Half the weights are zero. Why did serving not get faster?",
        answer=f"{SENTENCE}\n\nSparsity saves FLOPs that decode was not spending.",
        updated_at=LONG_AGO,
    )
    learner = UserFactory(email="learner@example.com")
    # The learner has written an approach and revealed the answer (signed-in readers see
    # the answer after trying first).
    practice_services.approach_save(user=learner, question=question, text="Mine", reveal=True)
    author = UserFactory(is_staff=True)
    author.groups.add(ensure_authors_group())
    url = live_server.url + question.get_absolute_url()
    old_month = LONG_AGO.strftime("%B %Y")

    reader = signed_in_page(
        browser.new_context(viewport={"width": 1280, "height": 900}).new_page(), learner
    )
    reader.goto(url)
    expect(reader.locator("#answer-text")).to_be_visible()
    expect(reader.locator(".page-header .meta time").first).to_have_text(old_month)
    # Select the sentence as a reader would: a triple click selects its paragraph.
    reader.locator("#answer-text p", has_text="memory bandwith").click(click_count=3)
    reader.get_by_text("Report a mistake", exact=True).click()
    quote = reader.locator("#correction-quote")
    expect(quote).to_have_value(SENTENCE)
    reader.get_by_label("Typo").check()
    reader.locator("#correction-note").fill("“bandwith” should be “bandwidth”.")
    reader.locator("#report-mistake").scroll_into_view_if_needed()
    reader.screenshot(path=str(SHOTS / "correction-form.png"), full_page=False)
    reader.get_by_role("button", name="Send report").click()
    expect(reader.get_by_text("Thank you: the authors will look at it.")).to_be_visible()
    correction = Correction.objects.get()
    assert correction.quote == SENTENCE and correction.kind == "typo"

    admin = signed_in_page(browser.new_context().new_page(), author)
    admin.goto(live_server.url + "/admin/community/correction/")
    admin.get_by_role("link", name=SENTENCE).click()
    expect(admin.locator(".correction-context mark")).to_have_text(SENTENCE)
    admin.select_option("#id_state", "fixed")
    admin.get_by_role("button", name="Save", exact=True).click()
    expect(admin.locator(".errorlist")).to_contain_text("Say what changed")
    admin.locator("#id_change_note").fill("Corrected the spelling of “bandwidth”.")
    admin.get_by_role("button", name="Save", exact=True).click()
    expect(admin.locator(".messagelist")).to_contain_text("was changed successfully")

    reader.goto(url)
    section = reader.get_by_test_id("what-changed")
    expect(section).to_contain_text("Corrected the spelling of “bandwidth”.")
    expect(section).not_to_contain_text("should be")  # the reporter's note stays private
    expect(reader.locator(".page-header .meta time").first).to_have_text(
        timezone.now().strftime("%B %Y")
    )
    section.scroll_into_view_if_needed()
    reader.screenshot(path=str(SHOTS / "correction-what-changed.png"), full_page=False)

    assert [m.to for m in mail.outbox] == [["learner@example.com"]]
    assert "Corrected the spelling" in mail.outbox[0].body
    reader.context.close()
    admin.context.close()
