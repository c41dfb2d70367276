"""Sign up by email with mandatory verification, sign in and out, password reset and
change, all through allauth with our templates."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail

from tests.conftest import PASSWORD

STRONG = "a-sturdy-passphrase-2026"


def link_in(message) -> str:
    return re.search(r"https?://[^\s]+", message.body).group(0)


def signup(client, email="new@example.com", password=STRONG):
    return client.post(
        "/accounts/signup/", {"email": email, "password1": password, "password2": password}
    )


def test_signup_requires_verification_then_signs_in(client, db):
    r = signup(client)
    assert r.status_code == 302 and r["Location"] == "/accounts/confirm-email/"
    assert "Check your email" in client.get(r["Location"]).content.decode()
    user = get_user_model().objects.get(email="new@example.com")
    assert not EmailAddress.objects.get(user=user).verified
    # Not signed in yet, and cannot sign in until the address is confirmed.
    assert "_auth_user_id" not in client.session
    r = client.post("/accounts/login/", {"login": "new@example.com", "password": STRONG})
    assert "_auth_user_id" not in client.session
    assert len(mail.outbox) == 1  # no resend within the cooldown
    url = link_in(mail.outbox[0])
    page = client.get(url)
    assert page.status_code == 200 and "Confirm my email" in page.content.decode()
    r = client.post(url)
    assert r.status_code == 302
    assert EmailAddress.objects.get(user=user).verified
    assert client.session["_auth_user_id"] == str(user.pk)


def test_signup_uses_password_validators(client, db):
    r = signup(client, password="password")
    assert r.status_code == 200
    assert "too common" in r.content.decode()
    assert not get_user_model().objects.exists()


def test_signup_with_a_taken_email_does_not_say_so(client, verified_user):
    r = signup(client, email=verified_user.email)
    # Same response as a fresh sign-up; the owner gets an email instead of the visitor a hint.
    assert r.status_code == 302 and r["Location"] == "/accounts/confirm-email/"
    assert get_user_model().objects.filter(email=verified_user.email).count() == 1


def test_sign_in_and_out(client, verified_user):
    r = client.post("/accounts/login/", {"login": verified_user.email, "password": PASSWORD})
    assert r.status_code == 302
    assert client.session["_auth_user_id"] == str(verified_user.pk)
    home = client.get("/").content.decode()
    assert "Sign out" in home and "/account/" in home
    client.post("/accounts/logout/")
    assert "_auth_user_id" not in client.session


def test_wrong_password_is_refused_without_saying_which_part(client, verified_user):
    r1 = client.post("/accounts/login/", {"login": verified_user.email, "password": "nope"})
    r2 = client.post("/accounts/login/", {"login": "nobody@example.com", "password": "nope"})
    assert r1.status_code == r2.status_code == 200
    m1 = re.search(r'class="form-errors"[^>]*>(.*?)</div>', r1.content.decode(), re.S).group(1)
    m2 = re.search(r'class="form-errors"[^>]*>(.*?)</div>', r2.content.decode(), re.S).group(1)
    assert m1 == m2


def test_password_reset(client, verified_user):
    r = client.post("/accounts/password/reset/", {"email": verified_user.email})
    assert r.status_code == 302
    url = link_in(mail.outbox[-1])
    r = client.get(url)  # allauth moves the key into the session and redirects
    form_url = r["Location"] if r.status_code == 302 else url
    assert "Choose a new password" in client.get(form_url).content.decode()
    r = client.post(form_url, {"password1": STRONG, "password2": STRONG})
    assert r.status_code == 302
    verified_user.refresh_from_db()
    assert verified_user.check_password(STRONG)


def test_password_reset_for_unknown_email_looks_the_same(client, db):
    r = client.post("/accounts/password/reset/", {"email": "ghost@example.com"})
    assert r.status_code == 302
    assert "If an account uses that address" in client.get(r["Location"]).content.decode()


def test_password_change(client, verified_user):
    client.force_login(verified_user)
    assert "Change your password" in client.get("/accounts/password/change/").content.decode()
    r = client.post(
        "/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": STRONG, "password2": STRONG},
    )
    assert r.status_code == 302
    verified_user.refresh_from_db()
    assert verified_user.check_password(STRONG)


@pytest.mark.parametrize(
    "url", ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"]
)
def test_auth_pages_use_the_site_layout(client, db, url):
    html = client.get(url).content.decode()
    assert 'class="site-header"' in html and 'class="auth-card"' in html
    assert 'name="robots" content="noindex"' in html


def test_email_is_console_by_default_and_smtp_by_environment():
    from pathlib import Path

    base = Path("inferview/settings/base.py").read_text()
    assert (
        'os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")' in base
    )
    for name in (
        "EMAIL_HOST",
        "EMAIL_PORT",
        "EMAIL_HOST_USER",
        "EMAIL_HOST_PASSWORD",
        "EMAIL_USE_TLS",
    ):
        assert f'"{name}"' in base
