"""Two-factor sign-in (allauth.mfa): staff need it for the admin; codes are checked,
throttled, and recovery codes work once."""

import re

import pyotp
import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

from tests.conftest import PASSWORD
from tests.factories import UserFactory

THROTTLED = "Too many failed sign-in attempts"


def _verified(user):
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


@pytest.fixture
def bare_staff(db):
    """Staff who can sign in with a password and have no second factor."""
    return _verified(UserFactory(is_staff=True, second_factor=False))


@pytest.fixture
def totp_staff(db):
    """Staff with an authenticator app whose secret the test knows, and recovery codes."""
    user = _verified(UserFactory(is_staff=True, second_factor=False))
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    codes = RecoveryCodes.activate(user).generate_codes()
    return user, secret, codes


def sign_in_with_password(client, user):
    r = client.post("/accounts/login/", {"login": user.email, "password": PASSWORD})
    assert r.status_code == 302 and r["Location"] == "/accounts/2fa/authenticate/"
    return r


def enter_code(client, code):
    return client.post("/accounts/2fa/authenticate/", {"code": code})


def confirm_password(client, next_url):
    """allauth asks for the password again before any change to how one signs in."""
    r = client.post("/accounts/reauthenticate/", {"password": PASSWORD, "next": next_url})
    assert r.status_code == 302, r.content.decode()[:500]


def errors(response) -> str:
    return " ".join(re.findall(r'class="field-error"[^>]*>(.*?)</p>', response.content.decode()))


def signed_in_as(client, user) -> bool:
    return client.session.get("_auth_user_id") == str(user.pk)


def test_staff_without_a_second_factor_cannot_use_the_admin(client, bare_staff):
    client.force_login(bare_staff)
    for url in ("/admin/", "/admin/questions/question/", "/admin/accounts/user/"):
        r = client.get(url)
        assert r.status_code == 403, url
        html = r.content.decode()
        assert "Turn on two-factor sign-in to use the admin" in html
        assert 'href="/accounts/2fa/totp/activate/"' in html
    # Posting to the admin is refused the same way (no change reaches a view).
    assert client.post("/admin/accounts/user/add/", {}).status_code == 403


def test_a_reader_without_a_second_factor_is_not_asked_for_one(client, free_user):
    client.force_login(free_user)
    assert client.get("/account/").status_code == 200
    assert client.get("/admin/").status_code == 302  # admin's own "not staff" redirect


def test_the_admin_sign_in_form_hands_over_to_the_two_factor_sign_in(client):
    r = client.get("/admin/login/?next=/admin/")
    assert r.status_code == 302 and r["Location"].startswith("/accounts/login/?next=")


def test_staff_with_totp_sign_in_with_a_code_and_can_use_the_admin(client, totp_staff):
    user, secret, _ = totp_staff
    sign_in_with_password(client, user)
    assert not signed_in_as(client, user)  # the password alone signs nobody in
    assert client.get("/admin/").status_code == 302
    r = enter_code(client, pyotp.TOTP(secret).now())
    assert r.status_code == 302 and signed_in_as(client, user)
    assert client.get("/admin/").status_code == 200


def test_a_wrong_code_is_refused_and_then_rate_limited(client, totp_staff):
    user, secret, _ = totp_staff
    sign_in_with_password(client, user)
    right = pyotp.TOTP(secret).now()
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"
    first = enter_code(client, wrong)
    assert first.status_code == 200 and errors(first) and THROTTLED not in errors(first)
    assert not signed_in_as(client, user)
    responses = [enter_code(client, wrong) for _ in range(10)]
    assert THROTTLED in errors(responses[-1])
    # While throttled even the right code is refused: guessing 10^6 codes is not an option.
    r = enter_code(client, pyotp.TOTP(secret).now())
    assert THROTTLED in errors(r) and not signed_in_as(client, user)
    assert "with a code for this account" in errors(r)  # not the password step's wording


def test_a_recovery_code_works_once(client, client_for, totp_staff):
    user, _, codes = totp_staff
    sign_in_with_password(client, user)
    assert enter_code(client, codes[0]).status_code == 302 and signed_in_as(client, user)
    again = client_for(None)
    sign_in_with_password(again, user)
    r = enter_code(again, codes[0])
    assert r.status_code == 200 and errors(r) and not signed_in_as(again, user)
    assert enter_code(again, codes[1]).status_code == 302 and signed_in_as(again, user)


def test_staff_set_up_totp_from_the_refusal_page_and_get_recovery_codes_once(client, bare_staff):
    sign_in = client.post("/accounts/login/", {"login": bare_staff.email, "password": PASSWORD})
    assert sign_in.status_code == 302 and signed_in_as(client, bare_staff)
    assert client.get("/admin/").status_code == 403
    assert client.get("/accounts/2fa/totp/activate/")["Location"].startswith(
        "/accounts/reauthenticate/"
    )
    confirm_password(client, "/accounts/2fa/totp/activate/")
    page = client.get("/accounts/2fa/totp/activate/")
    assert page.status_code == 200
    secret = re.search(r'id="authenticator_secret">([A-Z2-7]+)<', page.content.decode()).group(1)
    refused = client.post("/accounts/2fa/totp/activate/", {"code": "000000"})
    assert refused.status_code == 200 and errors(refused)
    r = client.post("/accounts/2fa/totp/activate/", {"code": pyotp.TOTP(secret).now()})
    assert r.status_code == 302
    assert Authenticator.objects.filter(user=bare_staff, type="totp").exists()
    assert client.get("/admin/").status_code == 200
    # Recovery codes: shown once, with a download of the same codes, then masked.
    shown = client.get("/accounts/2fa/recovery-codes/").content.decode()
    codes = re.search(r'id="recovery_codes">(.*?)</pre>', shown, re.S).group(1).split()
    assert len(codes) == 10 and all(c.isdigit() for c in codes)
    download = re.search(r'id="download-recovery-codes" href="([^"]+)"', shown).group(1)
    assert download == "data:text/plain;charset=utf-8," + "".join(f"{c}%0A" for c in codes)
    later = client.get("/accounts/2fa/recovery-codes/").content.decode()
    assert not any(c in later for c in codes) and "Make new codes" in later


def test_recovery_codes_can_be_regenerated_and_the_old_ones_stop_working(client, totp_staff):
    user, secret, old_codes = totp_staff
    sign_in_with_password(client, user)
    enter_code(client, pyotp.TOTP(secret).now())
    confirm_password(client, "/accounts/2fa/recovery-codes/generate/")
    r = client.post("/accounts/2fa/recovery-codes/generate/")
    assert r.status_code == 302 and r["Location"] == "/accounts/2fa/recovery-codes/"
    fresh = RecoveryCodes(Authenticator.objects.get(user=user, type="recovery_codes"))
    new_codes = fresh.get_unused_codes()
    assert set(new_codes).isdisjoint(old_codes)
    assert not fresh.validate_code(old_codes[0]) and fresh.validate_code(new_codes[0])


def test_the_account_page_says_whether_two_factor_is_on(client, bare_staff, totp_staff):
    client.force_login(bare_staff)
    assert "Two-factor sign-in is off" in client.get("/account/").content.decode()
    client.force_login(totp_staff[0])
    assert "Two-factor sign-in is on" in client.get("/account/").content.decode()
