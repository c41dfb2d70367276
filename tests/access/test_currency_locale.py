"""The paywall's currency follows the browser's languages until the viewer chooses
(issue 15: "currency shown by locale"), and the anonymous page cache keeps one copy per
currency, so an en-IN visitor's page is never served to an en-US one or the reverse."""

import pytest
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from inferview.access import pricing

INR_FIRST = 'for <strong class="paywall-price">₹2,000 / $25</strong>'
USD_FIRST = 'for <strong class="paywall-price">$25 / ₹2,000</strong>'


@pytest.mark.parametrize(
    ("header", "currency"),
    [
        ("en-IN,en;q=0.9", "INR"),
        ("hi", "INR"),
        ("ta-IN", "INR"),
        ("en-in", "INR"),  # case does not matter
        ("en_IN", None),  # not a language tag: the header is malformed and says nothing
        ("en, en-IN;q=0.8", "INR"),  # a bare "en" says nothing; the next tag decides
        ("en-US,en;q=0.9", None),
        ("en-GB, hi;q=0.5", None),  # the first tag with a region decides
        ("en-IN;q=0.2, en-US;q=0.9", None),  # weights, not order
        ("en-IN;q=0, fr", None),  # q=0 means "not this one"
        ("en-IN;q=abc, hi;q=0.1", None),  # a broken weight: the header says nothing
        ("zh-Hant-TW", None),
        ("es-419", None),
        ("*", None),
        ("", None),
        (";;,,q=", None),
    ],
)
def test_currency_for_languages(header, currency):
    assert pricing.currency_for_languages(header) == currency


def test_a_huge_header_is_cut_before_parsing():
    header = "en-US," + "x-xx," * 1000 + "en-IN"
    assert pricing.currency_for_languages(header) is None


def _request(user=None, session=None, language=""):
    request = RequestFactory().get("/", HTTP_ACCEPT_LANGUAGE=language)
    request.session = session if session is not None else {}
    request.user = user
    return request


@pytest.mark.django_db
def test_saved_preference_then_session_choice_then_languages_then_default(free_user):
    from django.contrib.auth.models import AnonymousUser

    anonymous = AnonymousUser()
    assert pricing.viewer_currency(_request(anonymous)) == "USD"
    assert pricing.viewer_currency(_request(anonymous, language="en-IN")) == "INR"
    chose_usd = {pricing.SESSION_KEY: "USD"}
    assert pricing.viewer_currency(_request(anonymous, chose_usd, "en-IN")) == "USD"
    # a learner who never chose: their browser decides, as for anyone
    assert free_user.preferred_currency == ""
    assert pricing.viewer_currency(_request(free_user, language="hi")) == "INR"
    free_user.preferred_currency = "USD"
    chose_inr = {pricing.SESSION_KEY: "INR"}
    assert pricing.viewer_currency(_request(free_user, chose_inr, "en-IN")) == "USD"


def test_anonymous_paywall_shows_the_locale_currency_first_and_the_cache_keeps_them_apart(
    gated, client
):
    q = next(q for q in gated.questions if q.access == "premium")
    url = q.get_absolute_url()
    india = client.get(url, HTTP_ACCEPT_LANGUAGE="en-IN,en;q=0.9")
    assert india.get("X-Page-Cache") is None
    assert INR_FIRST in india.content.decode()
    us = client.get(url, HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert us.get("X-Page-Cache") is None  # not the en-IN copy
    assert USD_FIRST in us.content.decode() and INR_FIRST not in us.content.decode()
    for language, expected, other in [
        ("en-IN", INR_FIRST, USD_FIRST),
        ("en-US", USD_FIRST, INR_FIRST),
        ("", USD_FIRST, INR_FIRST),
    ]:
        again = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
        html = again.content.decode()
        assert again["X-Page-Cache"] == "hit", language
        assert expected in html and other not in html, language


def test_a_choice_overrides_the_locale(gated, client):
    q = next(q for q in gated.questions if q.access == "premium")
    client.post("/premium/currency/", {"currency": "USD"})
    html = client.get(q.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en-IN").content.decode()
    assert USD_FIRST in html


def test_a_signed_in_choice_is_saved_by_the_accounts_app(gated, client, free_user):
    """access may not import accounts: the write goes through the hook accounts
    registers, in a transaction of its own, and is seen on the next page."""
    client.force_login(free_user)
    q = next(q for q in gated.questions if q.access == "premium")
    assert INR_FIRST in client.get(q.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="hi").content.decode()
    client.post("/premium/currency/", {"currency": "USD", "next": q.get_absolute_url()})
    assert get_user_model().objects.get(pk=free_user.pk).preferred_currency == "USD"
    # a new session (another device) with an Indian browser still gets the saved choice
    other = client.__class__()
    other.force_login(free_user)
    html = other.get(q.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en-IN").content.decode()
    assert USD_FIRST in html


@pytest.mark.django_db
def test_the_accounts_saver_refuses_an_unknown_currency(free_user):
    from django.core.exceptions import ValidationError

    from inferview.accounts import profile

    with pytest.raises(ValidationError) as exc:
        profile.set_preferred_currency(user=free_user, currency="XYZ")
    assert "currency" in exc.value.message_dict
    assert get_user_model().objects.get(pk=free_user.pk).preferred_currency == ""


def test_the_account_page_names_a_bad_currency(client_for, free_user):
    r = client_for(free_user).post("/account/", {"form": "currency", "currency": "XYZ"})
    assert r.status_code == 400
    html = r.content.decode()
    assert 'id="id_currency-error"' in html and "Select a valid choice" in html
    assert get_user_model().objects.get(pk=free_user.pk).preferred_currency == ""
