"""Failed sign-ins are throttled per (IP, email): the attacker is slowed, the owner
signing in from elsewhere is not, and nothing says whether the email exists."""

import re

from tests.conftest import PASSWORD

ATTACKER = "203.0.113.9"
OWNER_ELSEWHERE = "198.51.100.4"
THROTTLED = "Too many failed sign-in attempts"


def attempt(client, email, password, ip):
    return client.post("/accounts/login/", {"login": email, "password": password}, REMOTE_ADDR=ip)


def errors(response) -> str:
    found = re.search(r'class="form-errors"[^>]*>(.*?)</div>', response.content.decode(), re.S)
    return found.group(1).strip() if found else ""


def test_twenty_wrong_passwords_are_throttled(client, verified_user):
    responses = [attempt(client, verified_user.email, f"wrong-{i}", ATTACKER) for i in range(20)]
    assert all(r.status_code == 200 for r in responses)  # the form again, with a message
    assert THROTTLED in errors(responses[-1])
    assert THROTTLED not in errors(responses[0])
    # While throttled, even the right password from that network is refused.
    r = attempt(client, verified_user.email, PASSWORD, ATTACKER)
    assert THROTTLED in errors(r) and "_auth_user_id" not in client.session


def test_the_owner_can_still_sign_in_from_elsewhere(client, client_for, verified_user):
    for i in range(20):
        attempt(client, verified_user.email, f"wrong-{i}", ATTACKER)
    owner = client_for(None)
    r = attempt(owner, verified_user.email, PASSWORD, OWNER_ELSEWHERE)
    assert r.status_code == 302
    assert owner.session["_auth_user_id"] == str(verified_user.pk)


def test_throttling_does_not_reveal_whether_the_email_exists(client, verified_user):
    real = [errors(attempt(client, verified_user.email, f"w{i}", ATTACKER)) for i in range(20)]
    # From another network, so the per-IP cap on all sign-in posts stays out of the way.
    ghost = [
        errors(attempt(client, "ghost@example.com", f"w{i}", "203.0.113.77")) for i in range(20)
    ]
    assert real == ghost  # same messages at the same attempt numbers


def test_a_different_email_from_the_same_network_is_not_blocked_by_one_pair(client, verified_user):
    for i in range(20):
        attempt(client, "someone-else@example.com", f"w{i}", ATTACKER)
    r = attempt(client, verified_user.email, PASSWORD, ATTACKER)
    assert r.status_code == 302


def test_signup_is_rate_limited(client, db):
    statuses = [
        client.post(
            "/accounts/signup/",
            {
                "email": f"bulk{i}@example.com",
                "password1": "a-sturdy-passphrase-2026",
                "password2": "a-sturdy-passphrase-2026",
            },
            REMOTE_ADDR=ATTACKER,
        ).status_code
        for i in range(12)
    ]
    assert statuses[0] == 302
    assert statuses[-1] == 429
