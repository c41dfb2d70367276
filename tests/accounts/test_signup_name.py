"""Sign-up asks for an optional public name, with the handle shown when it is left empty
(issue 29); the name passes the profile's checks (shape, lookalikes, taken)."""

import re

import pytest
from django.contrib.auth import get_user_model

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

STRONG = "a-sturdy-passphrase-2026"


def signup_page(client):
    r = client.get("/accounts/signup/")
    assert r.status_code == 200
    html = r.content.decode()
    token = re.search(r'name="handle" value="([^"]+)"', html).group(1)
    shown = re.search(r'name="display_name"[^>]*placeholder="([^"]+)"', html).group(1)
    return html, token, shown


def post(client, token, name, email="new@example.com"):
    return client.post(
        "/accounts/signup/",
        {
            "email": email,
            "display_name": name,
            "handle": token,
            "password1": STRONG,
            "password2": STRONG,
        },
    )


def test_a_name_given_at_sign_up_is_saved(client):
    _, token, _ = signup_page(client)
    r = post(client, token, "  Ada Lovelace ")
    assert r.status_code == 302
    user = get_user_model().objects.get(email="new@example.com")
    assert user.display_name == "Ada Lovelace" and user.public_name == "Ada Lovelace"


def test_an_empty_name_keeps_the_handle_the_page_showed(client):
    html, token, shown = signup_page(client)
    assert shown.startswith("learner-") and f"show your handle, {shown}" in html
    r = post(client, token, "")
    assert r.status_code == 302
    user = get_user_model().objects.get(email="new@example.com")
    assert user.display_name == "" and user.username == shown and user.public_name == shown


def test_a_forged_handle_is_not_taken(client):
    r = post(client, "learner-00000000", "")
    assert r.status_code == 302
    user = get_user_model().objects.get(email="new@example.com")
    assert user.username.startswith("learner-") and user.username != "learner-00000000"


@pytest.mark.parametrize(
    "name, reason",
    [
        ("Ada Lovelace", "taken"),
        ("Аda Lovelace", ""),  # Cyrillic А: a lookalike of the taken name
        ("learner-1234abcd", "kept for handles"),
        ("a!", "letters or digits"),
    ],
)
def test_a_lookalike_or_taken_name_is_refused_naming_the_field(client, name, reason):
    UserFactory(display_name="Ada Lovelace")
    _, token, _ = signup_page(client)
    r = post(client, token, name)
    assert r.status_code == 200
    errors = r.context["form"].errors
    assert list(errors) == ["display_name"]
    assert reason in " ".join(errors["display_name"])
    assert not get_user_model().objects.filter(email="new@example.com").exists()
    assert 'id="id_display_name"' in r.content.decode()
