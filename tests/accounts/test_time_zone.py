"""The reader's time zone is kept in the profile (issue 29): taken from the browser's
``tz`` cookie on the first signed-in request, changeable on /account/, checked against
zoneinfo, and activated for a signed-in reader's requests."""

import zoneinfo

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.test import override_settings
from django.urls import include, path
from django.utils import timezone

from inferview.accounts import profile

pytestmark = pytest.mark.django_db


def current_zone(request):
    return HttpResponse(timezone.get_current_timezone_name())


urlpatterns = [path("zone-now/", current_zone), path("", include("inferview.urls"))]


def fresh(user):
    return get_user_model().objects.get(pk=user.pk)


def test_the_browser_zone_is_kept_on_the_first_signed_in_request(client_for, free_user):
    client = client_for(free_user)
    client.cookies["tz"] = "Asia/Kolkata"
    assert client.get("/account/").status_code == 200
    assert fresh(free_user).time_zone == "Asia/Kolkata"
    # later the profile wins over whatever the browser says
    client.cookies["tz"] = "America/New_York"
    client.get("/account/")
    assert fresh(free_user).time_zone == "Asia/Kolkata"


def test_an_unknown_browser_zone_is_not_kept(client_for, free_user):
    client = client_for(free_user)
    client.cookies["tz"] = "Not/AZone"
    assert client.get("/account/").status_code == 200
    assert fresh(free_user).time_zone == ""


@override_settings(ROOT_URLCONF=__name__)
def test_a_signed_in_reader_s_zone_is_activated_for_the_request(client_for, free_user):
    free_user.time_zone = "Asia/Kolkata"
    free_user.save(update_fields=["time_zone"])
    client = client_for(free_user)
    assert client.get("/zone-now/").content.decode() == "Asia/Kolkata"
    # and not for the next request of someone else (no zone leaks between requests)
    client.logout()
    assert client.get("/zone-now/").content.decode() == timezone.get_default_timezone_name()


def test_the_account_page_sets_and_refuses_a_zone_naming_the_field(client_for, free_user):
    client = client_for(free_user)
    html = client.get("/account/").content.decode()
    assert 'name="time_zone"' in html and '<option value="Europe/Paris">' in html
    r = client.post("/account/", {"form": "time_zone", "time_zone": "Europe/Paris"})
    assert r.status_code == 302
    assert fresh(free_user).time_zone == "Europe/Paris"
    r = client.post("/account/", {"form": "time_zone", "time_zone": "Mars/Olympus_Mons"})
    assert r.status_code == 400
    assert list(r.context["zone_form"].errors) == ["time_zone"]
    assert "is not a time zone we know" in r.content.decode()
    assert fresh(free_user).time_zone == "Europe/Paris"
    # empty goes back to the browser's zone
    assert client.post("/account/", {"form": "time_zone", "time_zone": ""}).status_code == 302
    assert fresh(free_user).time_zone == ""


@pytest.mark.parametrize("name", ["Mars/Base", "../etc/passwd", "x" * 65, "Europe/"])
def test_check_time_zone_refuses_unknown_names_naming_the_field(name):
    with pytest.raises(ValidationError) as exc:
        profile.check_time_zone(name)
    assert list(exc.value.message_dict) == ["time_zone"]


def test_check_time_zone_accepts_every_zone_zoneinfo_knows():
    for name in ["UTC", "Asia/Kolkata", "America/Argentina/Buenos_Aires", "Etc/GMT+5"]:
        assert profile.check_time_zone(name) == name
        zoneinfo.ZoneInfo(name)
