"""A page that shows an answer is never served from a shared cache to another tier."""

import pytest

from inferview.access import services
from tests.factories import UserFactory


@pytest.fixture
def shared_cache(settings):
    """Django's per-site cache: a real shared cache in front of every view."""
    settings.MIDDLEWARE = [
        "django.middleware.cache.UpdateCacheMiddleware",
        *settings.MIDDLEWARE,
        "django.middleware.cache.FetchFromCacheMiddleware",
    ]
    settings.CACHE_MIDDLEWARE_SECONDS = 600


def test_premium_first_then_anonymous_and_free_see_the_paywall(gated, client_for, shared_cache):
    q = next(q for q in gated.questions if q.access == "premium")
    premium = UserFactory()
    services.grant_premium(user=premium, granted_by=None, reason="cache test")
    r = client_for(premium).get(q.get_absolute_url())
    assert q.answer_marker in r.content.decode()
    for viewer in (client_for(None), client_for(UserFactory())):
        html = viewer.get(q.get_absolute_url()).content.decode()
        assert q.answer_marker not in html
        assert 'class="paywall"' in html
    # And the API detail, the same way.
    assert client_for(premium).get(f"/api/v1/questions/{q.pk}/").json()["answer_markdown"]
    assert client_for(None).get(f"/api/v1/questions/{q.pk}/").json()["answer_markdown"] is None


@pytest.mark.parametrize("who", ["anonymous", "premium"])
def test_pages_and_api_are_private_and_vary_on_cookie(gated, client_for, who):
    user = None
    if who == "premium":
        user = UserFactory()
        services.grant_premium(user=user, granted_by=None, reason="cache test")
    client = client_for(user)
    q = next(q for q in gated.questions if q.access == "premium")
    c = gated.concepts[-1]
    for url in [
        q.get_absolute_url(),
        c.get_absolute_url(),
        q.track.get_absolute_url(),
        "/curriculum/",
        "/",
        f"/api/v1/questions/{q.pk}/",
        "/api/v1/questions/",
        f"/api/v1/concepts/{c.slug}/",
        "/tracks/no-such-track/",
    ]:
        r = client.get(url)
        cache_control = {part.strip() for part in r["Cache-Control"].split(",")}
        assert {"private", "no-cache"} <= cache_control, url
        assert "public" not in cache_control
        assert "cookie" in r["Vary"].lower(), url


def test_static_files_are_not_marked_private(client, db):
    # WhiteNoise answers before our middleware; in tests static is served by the finder view,
    # so just check the middleware leaves an explicit public response alone.
    from django.http import HttpResponse
    from django.test import RequestFactory

    from inferview.access.middleware import PrivateResponsesMiddleware

    def view(request):
        response = HttpResponse("ok")
        response["Cache-Control"] = "public, max-age=60"
        return response

    response = PrivateResponsesMiddleware(view)(RequestFactory().get("/x"))
    assert response["Cache-Control"] == "public, max-age=60"
