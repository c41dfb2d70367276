"""The account page lists the reader's signed-in sessions and signs out one or the others."""

import re

from allauth.usersessions.models import UserSession
from django.test import Client

from inferview.accounts import security
from tests.conftest import PASSWORD

PHONE_UA = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36"
LAPTOP_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


def sign_in(user, ua, ip):
    c = Client(HTTP_USER_AGENT=ua, REMOTE_ADDR=ip)
    r = c.post("/accounts/login/", {"login": user.email, "password": PASSWORD})
    assert r.status_code == 302 and c.session["_auth_user_id"] == str(user.pk)
    return c


def test_the_account_page_lists_each_signed_in_device(verified_user):
    phone = sign_in(verified_user, PHONE_UA, "198.51.100.7")
    sign_in(verified_user, LAPTOP_UA, "203.0.113.5")
    html = phone.get("/account/").content.decode()
    assert "Chrome on Android" in html and "Firefox on Linux" in html
    assert "198.51.100.7" in html and "203.0.113.5" in html
    assert html.count("this device") == 1
    assert "last seen <time" in html and "just now" in html
    # The page never carries a session key.
    for key in UserSession.objects.values_list("session_key", flat=True):
        assert key not in html


def test_signing_out_one_other_session_ends_it_and_only_it(verified_user, client_for):
    phone = sign_in(verified_user, PHONE_UA, "198.51.100.7")
    laptop = sign_in(verified_user, LAPTOP_UA, "203.0.113.5")
    tablet = sign_in(verified_user, LAPTOP_UA, "203.0.113.6")
    laptops = UserSession.objects.get(ip="203.0.113.5")
    r = phone.post("/account/sessions/end/", {"session": laptops.pk})
    assert r.status_code == 302
    assert laptop.get("/account/").status_code == 302  # signed out: back to sign-in
    assert tablet.get("/account/").status_code == 200
    assert phone.get("/account/").status_code == 200


def test_sign_out_everywhere_else_keeps_this_session(verified_user):
    phone = sign_in(verified_user, PHONE_UA, "198.51.100.7")
    others = [sign_in(verified_user, LAPTOP_UA, f"203.0.113.{i}") for i in range(3)]
    assert phone.post("/account/sessions/end/", {"all_others": "1"}).status_code == 302
    assert all(o.get("/account/").status_code == 302 for o in others)
    assert phone.get("/account/").status_code == 200
    assert UserSession.objects.filter(user=verified_user).count() == 1


def test_another_readers_session_cannot_be_ended(verified_user, free_user, client_for):
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=free_user, email=free_user.email, verified=True, primary=True)
    victim = sign_in(free_user, LAPTOP_UA, "203.0.113.5")
    theirs = UserSession.objects.get(user=free_user)
    attacker = sign_in(verified_user, PHONE_UA, "198.51.100.7")
    r = attacker.post("/account/sessions/end/", {"session": theirs.pk}, follow=True)
    assert "That session had already ended." in r.content.decode()
    assert victim.get("/account/").status_code == 200


def test_a_bad_session_number_is_a_clear_400(verified_user):
    phone = sign_in(verified_user, PHONE_UA, "198.51.100.7")
    r = phone.post("/account/sessions/end/", {"session": "abc"})
    assert r.status_code == 400 and b"session" in r.content


def test_last_seen_moves_at_most_once_per_period(verified_user):
    phone = sign_in(verified_user, PHONE_UA, "198.51.100.7")
    row = UserSession.objects.get(user=verified_user)
    first_seen = row.last_seen_at
    phone.get("/account/")
    row.refresh_from_db()
    assert row.last_seen_at == first_seen  # within the period: no write
    session = phone.session
    session[security.SEEN_KEY] -= security.LAST_SEEN_EVERY + 1
    session.save()
    phone.get("/account/")
    row.refresh_from_db()
    assert row.last_seen_at > first_seen


def test_device_names():
    assert security.describe_device(PHONE_UA) == "Chrome on Android"
    assert security.describe_device(LAPTOP_UA) == "Firefox on Linux"
    assert security.describe_device("") == "Unknown browser"
    assert re.fullmatch(
        r"Edge on Windows",
        security.describe_device(
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0 Safari/537.36 Edg/131.0"
        ),
    )
