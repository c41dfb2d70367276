"""Session keys rotate at sign-in and sign-out, and a password change ends the user's
other sessions (the one that changed it stays signed in)."""

from django.contrib.sessions.models import Session
from django.test import Client

from tests.conftest import PASSWORD


def sign_in(client, user):
    r = client.post("/accounts/login/", {"login": user.email, "password": PASSWORD})
    assert r.status_code == 302, r.content[:300]
    return client.cookies["sessionid"].value


def test_sign_in_rotates_the_session_key(client, verified_user):
    client.get("/accounts/login/")
    session = client.session
    session["before"] = "anonymous"
    session.save()
    before = session.session_key
    client.cookies["sessionid"] = before
    after = sign_in(client, verified_user)
    assert after != before
    assert not Session.objects.filter(session_key=before).exists()  # the old key is dead


def test_sign_out_ends_the_session(client, verified_user):
    key = sign_in(client, verified_user)
    assert client.post("/accounts/logout/").status_code == 302
    assert client.cookies["sessionid"].value != key
    assert not Session.objects.filter(session_key=key).exists()
    stale = Client()
    stale.cookies["sessionid"] = key
    assert stale.get("/account/").status_code == 302  # sent to sign in


def test_a_password_change_ends_the_other_sessions(verified_user):
    laptop, phone = Client(), Client()
    sign_in(laptop, verified_user)
    sign_in(phone, verified_user)
    assert phone.get("/account/").status_code == 200
    r = laptop.post(
        "/accounts/password/change/",
        {
            "oldpassword": PASSWORD,
            "password1": "a-new-sturdy-pass-2026",
            "password2": "a-new-sturdy-pass-2026",
        },
    )
    assert r.status_code == 302, r.content[:300]
    assert laptop.get("/account/").status_code == 200  # the session that changed it stays
    assert phone.get("/account/").status_code == 302  # the other one is signed out
