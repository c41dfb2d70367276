"""The account and paywall pages in Chromium on a phone and a desktop: they render in
the site's layout, nothing overflows sideways, and the paywall offers the right tier."""

import os
from pathlib import Path

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from playwright.sync_api import expect

from questions.content_io import import_content
from questions.models import Concept, Question
from tests.conftest import DESKTOP, PHONE
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"


@pytest.fixture
def shots(artifacts_dir):
    target = Path(os.environ.get("ACCT_SHOTS_DIR") or artifacts_dir)
    target.mkdir(parents=True, exist_ok=True)
    return target


def no_sideways_overflow(page, viewport):
    """Our pages must fit; on question pages only our paywall is checked (the rest of the
    page belongs to other features)."""
    if page.locator(".question").count():
        box = page.locator(".paywall").bounding_box()
        assert box is None or box["x"] + box["width"] <= viewport["width"] + 1, page.url
        return
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"] + 1, page.url


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_account_and_paywall_pages(browser, live_server, viewport, shots):
    import_content(settings.CONTENT_DIR)
    name = "phone" if viewport is PHONE else "desktop"
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    url = live_server.url

    concept = Concept.objects.filter(published=True, access="premium").first()
    premium_q = (
        Question.objects.filter(published=True, access="premium").select_related("track").first()
    )
    for path, shot in [
        ("/accounts/login/", "signin"),
        ("/accounts/signup/", "signup"),
        ("/accounts/password/reset/", "password-reset"),
        ("/premium/", "premium"),
        (premium_q.get_absolute_url(), "question-premium-anonymous"),
    ]:
        page.goto(url + path)
        no_sideways_overflow(page, viewport)
        page.screenshot(path=str(shots / f"{shot}-{name}.png"), full_page=(name == "phone"))
    if concept is not None:
        page.goto(url + concept.get_absolute_url())
        expect(page.locator(".paywall")).to_be_visible()
        page.locator(".paywall").screenshot(path=str(shots / f"paywall-concept-{name}.png"))

    user = UserFactory(email=f"shots-{name}@example.com")
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    page.goto(url + "/accounts/login/")
    page.get_by_label("Email").fill(user.email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()
    for path, shot in [
        ("/account/", "account"),
        ("/accounts/email/", "emails"),
        ("/accounts/password/change/", "password-change"),
        ("/account/delete/", "delete"),
        ("/account/receipts/", "receipts-empty"),
        (premium_q.get_absolute_url(), "question-premium-free"),
    ]:
        page.goto(url + path)
        expect(page.locator(".site-header")).to_be_visible()
        no_sideways_overflow(page, viewport)
        page.screenshot(path=str(shots / f"{shot}-{name}.png"), full_page=(name == "phone"))
    paywall = page.locator(".paywall")
    assert paywall.get_attribute("data-unlocking-tier") == "premium"
    paywall.screenshot(path=str(shots / f"paywall-free-{name}.png"))
    context.close()
