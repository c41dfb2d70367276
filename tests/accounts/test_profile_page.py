"""The profile page: display name, theme, currency and email in one place (issue 15)."""

import pytest
from django.contrib.auth import get_user_model

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_profile_page_sets_display_name_and_theme_in_one_place(client_for, free_user):
    client = client_for(free_user)
    html = client.get("/account/").content.decode()
    for part in [
        'id="profile-heading"',
        "Display name",
        "Appearance",
        "Currency",
        'id="email-heading"',
    ]:
        assert part in html
    r = client.post("/account/", {"form": "profile", "display_name": " Ada ", "theme": "dark"})
    assert r.status_code == 302
    user = get_user_model().objects.get(pk=free_user.pk)
    assert (user.display_name, user.theme) == ("Ada", "dark")
    html = client.get("/account/").content.decode()
    assert 'data-theme-saved="dark"' in html and 'value="Ada"' in html
    # a bad name re-renders the form with the reason beside the field, nothing saved
    UserFactory(display_name="Grace")
    r = client.post("/account/", {"form": "profile", "display_name": "grace", "theme": "light"})
    assert r.status_code == 400
    assert "That display name is taken." in r.content.decode()
    user.refresh_from_db()
    assert (user.display_name, user.theme) == ("Ada", "dark")
    # the currency form on the same page still works on its own
    assert client.post("/account/", {"currency": "INR"}).status_code == 302
    user.refresh_from_db()
    assert user.preferred_currency == "INR"


def test_theme_toggle_saves_for_a_signed_in_learner_only(client_for, free_user):
    r = client_for(free_user).post(
        "/account/theme/", {"theme": "dark"}, headers={"accept": "application/json"}
    )
    assert r.json() == {"theme": "dark"}
    assert get_user_model().objects.get(pk=free_user.pk).theme == "dark"
    bad = client_for(free_user).post("/account/theme/", {"theme": "sepia"})
    assert bad.status_code == 400 and "theme" in bad.json()["error"]["fields"]
    assert client_for(None).post("/account/theme/", {"theme": "dark"}).status_code == 302
