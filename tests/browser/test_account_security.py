"""Two-factor sign-in and the data export, in Chromium (issue 31).

Staff without a second factor sign in through the real form, are refused by the admin,
follow its page to set up an authenticator app (codes from pyotp), save their recovery
codes by downloading them, and then the admin opens. A reader signs in, sees their
sessions on /account/ and downloads their data. Screenshots in var/screenshots/:
``admin-two-factor-required.png``, ``mfa-activate.png``, ``mfa-recovery-codes.png``,
``account-security.png`` (and ``-phone``)."""

from __future__ import annotations

import json

import pyotp
import pytest
from allauth.account.models import EmailAddress
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from playwright.sync_api import expect

from tests.accounts.reader_rows import fill_reader
from tests.conftest import PASSWORD
from tests.factories import ConceptFactory, QuestionFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = settings.VAR_DIR / "screenshots"


def page_problems(page) -> list[str]:
    """Sideways scrolling and serious or critical axe findings, as the learner pages test."""
    problems = []
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    if overflow > 0:
        problems.append(f"{page.url}: scrolls {overflow}px sideways")
    for v in Axe().run(page).response["violations"]:
        if v["impact"] in ("serious", "critical"):
            problems.append(f"{page.url}: axe {v['impact']} {v['id']}: {v['help']}")
    return problems


def sign_in(page, base, user):
    page.goto(base + "/accounts/login/")
    page.get_by_label("Email").fill(user.email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_staff_set_up_two_factor_from_the_admin_refusal(browser, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    staff = UserFactory(email="author@example.com", is_staff=True, second_factor=False)
    EmailAddress.objects.create(user=staff, email=staff.email, verified=True, primary=True)
    page = browser.new_context(
        viewport={"width": 1280, "height": 900}, accept_downloads=True
    ).new_page()
    base = live_server.url
    sign_in(page, base, staff)
    page.goto(base + "/admin/")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Turn on two-factor sign-in to use the admin"
    )
    assert page_problems(page) == []
    page.screenshot(path=str(SHOTS / "admin-two-factor-required.png"))
    page.get_by_role("link", name="Set up two-factor sign-in").click()
    # Changing how one signs in asks for the password again first.
    expect(page.get_by_role("heading", level=1)).to_have_text("Confirm it's you")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Set up an authenticator app")
    expect(page.locator("img.totp-qr")).to_be_visible()
    assert page_problems(page) == []
    page.screenshot(path=str(SHOTS / "mfa-activate.png"), full_page=True)
    secret = page.locator("#authenticator_secret").inner_text().strip()
    page.get_by_label("Authenticator code").fill(pyotp.TOTP(secret).now())
    page.get_by_role("button", name="Turn on two-factor sign-in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Recovery codes")
    codes = page.locator("#recovery_codes").inner_text().split()
    assert len(codes) == 10
    assert page_problems(page) == []
    page.screenshot(path=str(SHOTS / "mfa-recovery-codes.png"), full_page=True)
    with page.expect_download() as info:
        page.get_by_role("link", name="Download codes").click()
    download = info.value
    assert download.suggested_filename == "inferview-recovery-codes.txt"
    assert open(download.path()).read().split() == codes
    page.goto(base + "/admin/")
    expect(page.locator("#site-name")).to_contain_text("Inferview authoring")
    # Shown once: the page no longer lists them.
    page.goto(base + "/accounts/2fa/recovery-codes/")
    assert not any(code in page.content() for code in codes)


@pytest.mark.parametrize(
    "viewport", [{"width": 390, "height": 844}, {"width": 1280, "height": 900}]
)
def test_a_reader_sees_their_sessions_and_downloads_their_data(browser, live_server, viewport):
    SHOTS.mkdir(parents=True, exist_ok=True)
    reader = UserFactory(email="reader@example.com")
    fill_reader(reader, QuestionFactory(), ConceptFactory(), tag="MINE")
    other = UserFactory(email="other@example.com")
    fill_reader(other, QuestionFactory(), ConceptFactory(), tag="THEIRS")
    page = browser.new_context(viewport=viewport, accept_downloads=True).new_page()
    base = live_server.url
    sign_in(page, base, reader)
    page.goto(base + "/account/")
    sessions = page.locator("#sessions-heading + ul")
    expect(sessions).to_contain_text("this device")
    expect(sessions).to_contain_text("Chrom")
    suffix = "-phone" if viewport["width"] < 600 else ""
    page.locator("#security-heading").scroll_into_view_if_needed()
    assert page_problems(page) == []
    page.screenshot(path=str(SHOTS / f"account-security{suffix}.png"), full_page=True)
    with page.expect_download() as info:
        page.get_by_role("link", name="Download your data").click()
    download = info.value
    assert download.suggested_filename.startswith("inferview-data-")
    data = json.loads(open(download.path()).read())
    assert data["profile"]["email"] == "reader@example.com"
    assert [c["body"] for c in data["comments"]] == ["Comment MINE"]
    assert [c["quote"] for c in data["corrections"]] == ["Quote MINE"]
    assert "THEIRS" not in json.dumps(data) and "other@example.com" not in json.dumps(data)
