"""In Chromium: sign up, verify by the emailed link, read the account tier's extra
answers, buy premium with the local provider, read every answer."""

import os
import re
from pathlib import Path

import pytest
from django.core import mail
from playwright.sync_api import expect

from questions.models import Question
from tests.factories import QuestionFactory, TrackFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EMAIL = "learner@example.com"
PASSWORD = "a-sturdy-passphrase-2026"


@pytest.fixture
def shots(artifacts_dir):
    target = Path(os.environ.get("ACCT_SHOTS_DIR") or artifacts_dir)
    target.mkdir(parents=True, exist_ok=True)
    return target


@pytest.fixture
def dev_payments(settings):
    # The local provider runs only with DEBUG; this is the development set-up.
    settings.DEBUG = True
    settings.PAYMENTS_LOCAL_PROVIDER = True
    settings.STRIPE_SECRET_KEY = ""


def _small_site() -> None:
    """Two tracks with two questions at each access level: every rule the journey crosses,
    without the shipped content's 300 pages (test_shipped_site renders those)."""
    for t in range(2):
        track = TrackFactory(order=t)
        for n, level in enumerate(["open", "open", "account", "account", "premium", "premium"]):
            QuestionFactory(
                track=track,
                number=n + 1,
                access=level,
                answer=f"**Reasoning** for a {level} question: the bound is memory, not compute.",
            )


def test_sign_up_verify_read_buy_read_everything(browser, live_server, dev_payments, shots):
    _small_site()
    by_access = {
        level: list(
            Question.objects.filter(published=True, access=level).select_related("track")[:2]
        )
        for level in ("open", "account", "premium")
    }
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    url = live_server.url

    # An anonymous visitor meets the sign-in paywall on an account answer.
    account_q = by_access["account"][0]
    page.goto(url + account_q.get_absolute_url())
    expect(page.locator(".paywall")).to_be_visible()
    assert page.locator("#answer-text").count() == 0
    page.locator(".paywall").screenshot(path=str(shots / "paywall-anonymous.png"))
    page.screenshot(path=str(shots / "question-anonymous.png"), full_page=True)

    # Sign up.
    page.get_by_role("link", name="Create a free account").first.click()
    page.wait_for_url("**/accounts/signup/**")
    page.screenshot(path=str(shots / "signup.png"), full_page=True)
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label(re.compile("Password \\(again\\)")).fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/accounts/confirm-email/")
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    page.screenshot(path=str(shots / "verification-sent.png"), full_page=True)

    # Verify by the emailed link.
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [EMAIL]
    link = re.search(r"https?://\S+", mail.outbox[0].body).group(0)
    page.goto(link)
    page.screenshot(path=str(shots / "confirm-email.png"), full_page=True)
    page.get_by_role("button", name="Confirm my email").click()
    page.wait_for_load_state()
    expect(page.get_by_role("link", name="Account")).to_be_visible()

    # The account tier's extra answers are open now; premium ones are not.
    # (A signed-in learner's answer sits in the page, hidden until they reveal it after
    # writing their own approach; "readable" is the answer being there and no paywall.)
    for q in by_access["open"] + by_access["account"]:
        page.goto(url + q.get_absolute_url())
        assert page.locator("#answer-text").count() == 1, q
        assert page.locator(".paywall").count() == 0, q
    page.goto(url + account_q.get_absolute_url())
    page.get_by_role("button", name="Save and reveal the answer").click()
    page.wait_for_load_state()
    expect(page.locator("#answer-text")).to_be_visible()
    premium_q = by_access["premium"][0]
    page.goto(url + premium_q.get_absolute_url())
    paywall = page.locator(".paywall")
    expect(paywall).to_be_visible()
    expect(page.locator("#answer-text")).to_have_count(0)
    remaining = int(paywall.get_attribute("data-remaining"))
    assert (
        remaining
        == Question.objects.filter(published=True, track__published=True, access="premium").count()
    )
    expect(paywall).to_contain_text(f"{remaining} remaining answers")
    paywall.screenshot(path=str(shots / "paywall-free.png"))

    # Buy premium with the local provider.
    page.get_by_role("button", name=re.compile("Unlock everything for \\$25")).click()
    page.wait_for_url("**/premium/checkout/local/**")
    page.screenshot(path=str(shots / "local-checkout.png"), full_page=True)
    page.get_by_role("button", name="Pay $25").click()
    page.wait_for_url("**/premium/checkout/success/**")
    expect(page.get_by_role("heading", name="You have Premium")).to_be_visible()
    page.screenshot(path=str(shots / "checkout-success.png"), full_page=True)

    # Every answer.
    for q in Question.objects.filter(published=True, track__published=True).select_related("track"):
        page.goto(url + q.get_absolute_url())
        assert page.locator("#answer-text").count() == 1, q
        assert page.locator(".paywall").count() == 0, q
    page.goto(url + premium_q.get_absolute_url())
    page.screenshot(path=str(shots / "question-premium.png"), full_page=True)

    page.goto(url + "/account/receipts/")
    assert page.locator(".receipts-table tbody tr").count() == 1
    expect(page.locator(".receipts-table")).to_contain_text("Paid")
    page.screenshot(path=str(shots / "receipts.png"), full_page=True)
    page.locator(".receipts-table a").first.click()
    page.screenshot(path=str(shots / "receipt.png"), full_page=True)
    page.goto(url + "/account/")
    page.screenshot(path=str(shots / "account.png"), full_page=True)

    # Sign out; the sign-in page.
    page.get_by_role("button", name="Sign out", exact=True).click()
    page.wait_for_load_state()
    page.goto(url + "/accounts/login/")
    page.screenshot(path=str(shots / "signin.png"), full_page=True)
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill("not-my-password")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()
    expect(page.locator(".form-errors")).to_be_visible()
    page.screenshot(path=str(shots / "signin-error.png"), full_page=True)
    page.goto(url + "/premium/")
    page.screenshot(path=str(shots / "premium-anonymous.png"), full_page=True)
    assert errors == []
    context.close()
