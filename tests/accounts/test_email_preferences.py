"""Email preferences on /account/: "Email me replies to my comments", on by default."""

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db

CHECKBOX = 'type="checkbox" name="email_replies" id="id_email_replies" value="on"'


def _saved(user) -> bool:
    return get_user_model().objects.get(pk=user.pk).email_replies


def test_the_form_saves_and_shows_the_saved_state(client_for, free_user):
    client = client_for(free_user)
    html = client.get("/account/").content.decode()
    # a labelled checkbox, ticked by default, in a form with a CSRF token
    assert f"{CHECKBOX} checked" in html
    assert '<label class="checkbox-label" for="id_email_replies"><input' in html
    assert "> Email me replies to my comments and what became of my reports</label>" in html
    form = html.split('value="email">')[0].rsplit("<form", 1)[1]
    assert 'name="csrfmiddlewaretoken"' in form

    r = client.post("/account/", {"form": "email"})  # unticked: the box sends nothing
    assert r.status_code == 302 and _saved(free_user) is False
    html = client.get("/account/").content.decode()
    assert CHECKBOX in html and f"{CHECKBOX} checked" not in html
    assert "Saved your email preferences." in html

    r = client.post("/account/", {"form": "email", "email_replies": "on"})
    assert r.status_code == 302 and _saved(free_user) is True
    assert f"{CHECKBOX} checked" in client.get("/account/").content.decode()


def test_a_value_no_checkbox_sends_is_refused_by_field(client_for, free_user):
    client = client_for(free_user)
    client.post("/account/", {"form": "email"})
    r = client.post("/account/", {"form": "email", "email_replies": "maybe"})
    assert r.status_code == 400
    html = r.content.decode()
    assert 'id="id_email_replies-error"' in html and "Tick the box or leave it empty." in html
    assert 'aria-invalid="true"' in html
    assert _saved(free_user) is False  # nothing written


def test_the_form_needs_a_csrf_token(free_user):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(free_user)
    assert client.post("/account/", {"form": "email"}).status_code == 403
    assert _saved(free_user) is True


def test_the_service_refuses_a_non_boolean(free_user):
    from django.core.exceptions import ValidationError

    from inferview.accounts import profile

    with pytest.raises(ValidationError) as exc:
        profile.set_email_preferences(user=free_user, email_replies="no")
    assert "email_replies" in exc.value.message_dict
