"""Review: the delete-account form checks the password, so it must be throttled."""

import pytest
from django.contrib.auth import get_user_model

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_delete_account_password_guessing_is_throttled(client_for, verified_user):
    c = client_for(verified_user)
    for _ in range(5):
        r = c.post("/account/delete/", {"password": "wrong guess", "confirm": "on"})
        assert r.status_code == 200
    r = c.post("/account/delete/", {"password": "another guess", "confirm": "on"})
    assert r.status_code == 429
    assert "Too many attempts" in r.content.decode()
    # Once throttled, even the right password is not checked (no oracle), and nothing is lost.
    r = c.post("/account/delete/", {"password": PASSWORD, "confirm": "on"})
    assert r.status_code == 429
    assert get_user_model().objects.filter(pk=verified_user.pk).exists()


def test_delete_account_still_works_first_time(client_for, verified_user):
    r = client_for(verified_user).post("/account/delete/", {"password": PASSWORD, "confirm": "on"})
    assert r.status_code == 302
    assert not get_user_model().objects.filter(pk=verified_user.pk).exists()
