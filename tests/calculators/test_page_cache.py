"""A calculator page is cached whole for every reader (inferview.pages.calculators): the
page holds no CSRF token; its form is a GET to the permalink (computed on the server, so
it works without JavaScript), which calculators.js posts instead with the token from the
CSRF cookie that the response sets when the browser has none."""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from calculators.models import CalculationRun

pytestmark = pytest.mark.django_db
URL = "/calculators/decode_bound/"


def form_fields(html: str) -> dict[str, str]:
    """What a browser without JavaScript submits: the form's inputs with their values."""
    form = html.split('class="calc-form', 1)[1].split("</form>", 1)[0]
    fields = dict(re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', form))
    selected = re.search(r'name="preset".*?<option value="([^"]*)" selected', form, re.S)
    if selected:
        fields["preset"] = selected.group(1)
    return fields


def test_the_page_is_the_same_for_everyone_and_served_from_the_cache(client):
    first = client.get(URL)
    assert first.status_code == 200 and first.get("X-Page-Cache") is None
    html = first.content.decode()
    assert "csrfmiddlewaretoken" not in html  # nothing of this browser in the page
    assert 'method="get"' in html and 'name="run" value="1"' in html
    assert "csrftoken" in first.cookies  # the cookie the script posts with
    with CaptureQueriesContext(connection) as queries:
        again = Client().get(URL)  # another visitor, no cookie
    assert again["X-Page-Cache"] == "hit" and again.content.decode() == html
    assert len(queries) == 0
    assert "csrftoken" in again.cookies  # set on the response, not kept in the page


def test_a_signed_in_reader_gets_the_tier_s_shared_page(client_for, free_user, verified_user):
    client_for(verified_user).get(URL)  # another free reader renders it
    c = client_for(free_user)
    c.cookies["csrftoken"] = "q" * 32
    with CaptureQueriesContext(connection) as queries:
        response = c.get(URL)
    html = response.content.decode()
    assert response["X-Page-Cache"] == "shared" and len(queries) == 1  # the user
    assert "\ue000" not in html and "Sign out" in html
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    signed_out = c.post("/accounts/logout/", {"csrfmiddlewaretoken": token})
    assert signed_out.status_code == 302  # the header's token is this browser's


def test_without_javascript_the_form_computes_through_the_permalink(client):
    html = client.get(URL).content.decode()
    fields = form_fields(html)
    fields["params_b"] = "70"
    response = client.get(URL, fields)  # what the GET form submits
    assert response.status_code == 200
    result = response.content.decode()
    assert "calc-outputs" in result and "tokens/s" in result
    assert CalculationRun.objects.count() == 0  # computed here, nothing queued


def test_with_the_script_the_form_posts_with_the_cookie_s_token():
    c = Client(enforce_csrf_checks=True)
    html = c.get(URL).content.decode()
    secret = c.cookies["csrftoken"].value  # what calculators.js reads
    fields = {k: v for k, v in form_fields(html).items() if k != "run"} | {"params_b": "70"}
    response = c.post(URL, {**fields, "action": "run", "csrfmiddlewaretoken": secret})
    assert response.status_code == 302 and "/runs/" in response["Location"]
    assert CalculationRun.objects.count() == 1
    refused = Client(enforce_csrf_checks=True).post(URL, {**fields, "action": "run"})
    assert refused.status_code == 403


def test_the_no_js_preset_button_fills_the_form(client):
    html = client.get(URL).content.decode()
    fields = {**form_fields(html), "preset": "h200", "action": "preset"}
    response = client.get(URL, fields)
    assert response.status_code == 200
    assert re.search(r'name="bandwidth_tbs"[^>]*value="4.8"', response.content.decode())
    assert "calc-outputs" not in response.content.decode()  # filled, not computed


def test_a_sweep_too_large_for_a_link_offers_a_form_that_queues_it(client, monkeypatch):
    from calculators import views

    monkeypatch.setattr(views, "PERMALINK_POINTS", 2)
    fields = form_fields(client.get(URL).content.decode()) | {
        "params_b": "70",
        "batch_size": "1,2,4",
    }
    response = client.get(URL, fields)
    html = response.content.decode()
    assert response.status_code == 200 and "too large to compute from a link" in html
    assert 'method="post"' in html and "csrfmiddlewaretoken" in html
    assert response.get("X-Page-Cache") is None
    again = client.get(URL, fields)  # a page with a token is never stored
    assert again.get("X-Page-Cache") is None
