"""Every URL's GET status for anonymous, free, premium and staff viewers, and CSRF on
every unsafe endpoint, over the whole URLconf (Zulip's PublicURLTest is the model).

``URLS`` has one entry per route: the concrete path (formatted with the rows of
``urlmap.build_world``, owned by the free user), the GET status per role, and the unsafe
methods the route takes. A route added to the URLconf without an entry fails
``test_every_route_has_an_expectation``; once it has one, the CSRF test covers it too.
The free user owns the comment, the purchase (receipt) and the run, so premium and staff
see another user's objects: 403/404 there is the IDOR check for the HTML pages.
"""

from __future__ import annotations

import pytest
from django.test import Client

from inferview.access.services import grant_premium
from tests.factories import UserFactory
from tests.security.urlmap import build_world, routes

ROLES = ("anonymous", "free", "premium", "staff")
# (path, GET status for each role, unsafe methods taken)
Entry = tuple[str, tuple[int, int, int, int], str]

URLS: dict[str, Entry] = {
    "accounts/login/": ("/accounts/login/", (200, 302, 302, 302), "post"),
    "accounts/logout/": ("/accounts/logout/", (302, 200, 200, 200), "post"),
    "accounts/inactive/": ("/accounts/inactive/", (200, 200, 200, 200), ""),
    "accounts/signup/": ("/accounts/signup/", (200, 302, 302, 302), "post"),
    "accounts/reauthenticate/": ("/accounts/reauthenticate/", (302, 200, 200, 200), "post"),
    "accounts/reauthenticate/code/": (
        "/accounts/reauthenticate/code/",
        (302, 302, 302, 302),
        "post",
    ),
    "accounts/reauthenticate/code/confirm/": (
        "/accounts/reauthenticate/code/confirm/",
        (302, 302, 302, 302),
        "post",
    ),
    "accounts/email/": ("/accounts/email/", (302, 200, 200, 200), "post"),
    "accounts/confirm-email/": ("/accounts/confirm-email/", (200, 200, 200, 200), ""),
    "accounts/password/change/": ("/accounts/password/change/", (302, 200, 200, 200), "post"),
    "accounts/password/set/": ("/accounts/password/set/", (302, 302, 302, 302), "post"),
    "accounts/password/reset/": ("/accounts/password/reset/", (200, 200, 200, 200), "post"),
    "accounts/login/code/confirm/": ("/accounts/login/code/confirm/", (302, 302, 302, 302), "post"),
    "accounts/^confirm-email/(?P<key>[-:\\w]+)/$": (
        "/accounts/confirm-email/not-a-key/",
        (200, 200, 200, 200),
        "post",
    ),
    "accounts/password/reset/key/done/": (
        "/accounts/password/reset/key/done/",
        (200, 200, 200, 200),
        "",
    ),
    "accounts/^password/reset/key/(?P<uidb36>[0-9A-Za-z]+)-(?P<key>.+)/$": (
        "/accounts/password/reset/key/1-bad-key/",
        (200, 200, 200, 200),
        "post",
    ),
    "accounts/password/reset/done/": ("/accounts/password/reset/done/", (200, 200, 200, 200), ""),
    "account/": ("/account/", (302, 200, 200, 200), "post"),
    "account/delete/": ("/account/delete/", (302, 200, 200, 200), "post"),
    "account/theme/": ("/account/theme/", (302, 405, 405, 405), "post"),
    "account/sessions/end/": ("/account/sessions/end/", (302, 405, 405, 405), "post"),
    "account/export/": ("/account/export/", (302, 200, 200, 200), ""),
    "account/two-factor-required/": ("/account/two-factor-required/", (302, 403, 403, 403), ""),
    "api/v1/account/export/": ("/api/v1/account/export/", (401, 200, 200, 200), ""),
    # allauth.mfa and allauth.usersessions; changes to a second factor ask for the password
    # again first (302 to /accounts/reauthenticate/), staff already have one (tests.factories)
    "accounts/2fa/": ("/accounts/2fa/", (302, 200, 200, 200), ""),
    "accounts/2fa/authenticate/": ("/accounts/2fa/authenticate/", (302, 302, 302, 302), "post"),
    "accounts/2fa/reauthenticate/": ("/accounts/2fa/reauthenticate/", (302, 302, 302, 200), "post"),
    "accounts/2fa/totp/activate/": ("/accounts/2fa/totp/activate/", (302, 302, 302, 302), "post"),
    "accounts/2fa/totp/deactivate/": (
        "/accounts/2fa/totp/deactivate/",
        (302, 404, 404, 302),
        "post",
    ),
    "accounts/2fa/recovery-codes/": ("/accounts/2fa/recovery-codes/", (302, 404, 404, 404), ""),
    "accounts/2fa/recovery-codes/generate/": (
        "/accounts/2fa/recovery-codes/generate/",
        (302, 302, 302, 302),
        "post",
    ),
    "accounts/2fa/recovery-codes/download/": (
        "/accounts/2fa/recovery-codes/download/",
        (302, 404, 404, 404),
        "",
    ),
    "accounts/sessions/": ("/accounts/sessions/", (302, 200, 200, 200), "post"),
    "premium/": ("/premium/", (200, 200, 200, 200), ""),
    "premium/currency/": ("/premium/currency/", (405, 405, 405, 405), "post"),
    "premium/checkout/": ("/premium/checkout/", (302, 405, 405, 405), "post"),
    "premium/checkout/success/": ("/premium/checkout/success/", (302, 404, 404, 404), ""),
    "premium/checkout/cancelled/": ("/premium/checkout/cancelled/", (200, 200, 200, 200), ""),
    "premium/checkout/local/<str:session_id>/": (
        "/premium/checkout/local/{w.purchase.checkout_session_id}/",
        (302, 404, 404, 404),
        "post",
    ),
    "payments/webhook/stripe/": ("/payments/webhook/stripe/", (405, 405, 405, 405), "post"),
    "account/receipts/": ("/account/receipts/", (302, 200, 200, 200), ""),
    "account/receipts/<int:pk>/": ("/account/receipts/{w.purchase.pk}/", (302, 200, 404, 404), ""),
    "dashboard/": ("/dashboard/", (302, 200, 200, 200), ""),
    "bookmarks/": ("/bookmarks/", (302, 200, 200, 200), ""),
    "review/": ("/review/", (302, 200, 200, 200), ""),
    "community/bookmarks/toggle/": ("/community/bookmarks/toggle/", (405, 405, 405, 405), "post"),
    "community/corrections/": ("/community/corrections/", (405, 405, 405, 405), "post"),
    "community/questions/<int:pk>/practice/": (
        "/community/questions/{w.open_q.pk}/practice/",
        (405, 405, 405, 405),
        "post",
    ),
    "community/questions/<int:pk>/key-points/": (
        "/community/questions/{w.open_q.pk}/key-points/",
        (405, 405, 405, 405),
        "post",
    ),
    "practice/questions/<int:pk>/numbers/": (
        "/practice/questions/{w.premium_q.pk}/numbers/",
        (200, 200, 200, 200),
        "post",
    ),
    "practice/mock/": ("/practice/mock/", (302, 200, 200, 200), "post"),
    "practice/mock/<int:pk>/": ("/practice/mock/{w.mock.pk}/", (302, 200, 404, 404), "post"),
    "practice/cram/": ("/practice/cram/", (302, 200, 200, 200), "post"),
    "start/": ("/start/", (302, 200, 200, 200), ""),
    "community/questions/<int:pk>/rate/": (
        "/community/questions/{w.open_q.pk}/rate/",
        (405, 405, 405, 405),
        "post",
    ),
    "community/questions/<int:pk>/progress/": (
        "/community/questions/{w.open_q.pk}/progress/",
        (405, 405, 405, 405),
        "post",
    ),
    "community/questions/<int:pk>/difficulty/": (
        "/community/questions/{w.open_q.pk}/difficulty/",
        (405, 405, 405, 405),
        "post",
    ),
    "community/<str:kind>/<int:pk>/comments/": (
        "/community/question/{w.open_q.pk}/comments/",
        (405, 405, 405, 405),
        "post",
    ),
    "community/comments/<int:pk>/edit/": (
        "/community/comments/{w.comment.pk}/edit/",
        (302, 200, 403, 403),
        "post",
    ),
    "community/comments/<int:pk>/delete/": (
        "/community/comments/{w.comment.pk}/delete/",
        (302, 200, 403, 403),
        "post",
    ),
    "community/comments/<int:pk>/report/": (
        "/community/comments/{w.comment.pk}/report/",
        (302, 200, 200, 200),
        "post",
    ),
    "calculators/": ("/calculators/", (200, 200, 200, 200), ""),
    "calculators/<slug:slug>/": ("/calculators/roofline/", (200, 200, 200, 200), "post"),
    "calculators/<slug:slug>/runs/<uuid:run_id>/": (
        "/calculators/roofline/runs/{w.run.pk}/",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/calculators/": ("/api/v1/calculators/", (200, 200, 200, 200), ""),
    "api/v1/calculators/presets/": ("/api/v1/calculators/presets/", (200, 200, 200, 200), ""),
    "api/v1/calculators/runs/<uuid:run_id>/": (
        "/api/v1/calculators/runs/{w.run.pk}/",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/calculators/<slug:slug>/": ("/api/v1/calculators/roofline/", (200, 200, 200, 200), ""),
    "api/v1/calculators/<slug:slug>/runs/": (
        "/api/v1/calculators/roofline/runs/",
        (405, 405, 405, 405),
        "post",
    ),
    "api/v1/access/": ("/api/v1/access/", (200, 200, 200, 200), ""),
    "api/v1/^purchases/$": ("/api/v1/purchases/", (403, 200, 200, 200), ""),
    "api/v1/^purchases/(?P<pk>[^/.]+)/$": (
        "/api/v1/purchases/{w.purchase.pk}/",
        (403, 200, 404, 404),
        "",
    ),
    "api/v1/bookmarks/": ("/api/v1/bookmarks/", (403, 200, 200, 200), "post"),
    "api/v1/progress/": ("/api/v1/progress/", (403, 200, 200, 200), ""),
    "api/v1/corrections/": ("/api/v1/corrections/", (401, 200, 200, 200), "post"),
    "api/v1/corrections/<int:pk>/": ("/api/v1/corrections/1/", (401, 405, 405, 405), "patch"),
    "api/v1/reviews/": ("/api/v1/reviews/", (403, 200, 200, 200), ""),
    "api/v1/dashboard/": ("/api/v1/dashboard/", (403, 200, 200, 200), ""),
    "api/v1/search/": ("/api/v1/search/?q=question", (200, 200, 200, 200), ""),
    "api/v1/questions/<int:pk>/practice/": (
        "/api/v1/questions/{w.open_q.pk}/practice/",
        (403, 200, 200, 200),
        "put",
    ),
    "api/v1/practice/questions/<int:pk>/variant/": (
        "/api/v1/practice/questions/{w.premium_q.pk}/variant/",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/practice/questions/<int:pk>/new-attempt/": (
        "/api/v1/practice/questions/{w.open_q.pk}/new-attempt/",
        (405, 405, 405, 405),
        "post",
    ),
    "api/v1/practice/questions/<int:pk>/key-points/": (
        "/api/v1/practice/questions/{w.premium_q.pk}/key-points/",
        (200, 200, 200, 200),
        "post",
    ),
    "api/v1/practice/answers/": ("/api/v1/practice/answers/", (403, 200, 200, 200), "post"),
    "api/v1/practice/mocks/": ("/api/v1/practice/mocks/", (403, 200, 200, 200), "post"),
    "api/v1/practice/mocks/<int:pk>/": (
        "/api/v1/practice/mocks/{w.mock.pk}/",
        (403, 200, 404, 404),
        "",
    ),
    "api/v1/practice/mocks/<int:pk>/answer/": (
        "/api/v1/practice/mocks/{w.mock.pk}/answer/",
        (403, 405, 405, 405),
        "post",
    ),
    "api/v1/practice/mocks/<int:pk>/finish/": (
        "/api/v1/practice/mocks/{w.mock.pk}/finish/",
        (403, 405, 405, 405),
        "post",
    ),
    "api/v1/practice/plans/": ("/api/v1/practice/plans/", (403, 200, 200, 200), "post delete"),
    "api/v1/practice/plans/items/<int:pk>/": (
        "/api/v1/practice/plans/items/{w.cram_item.pk}/",
        (403, 405, 405, 405),
        "post",
    ),
    "api/v1/questions/<int:pk>/progress/": (
        "/api/v1/questions/{w.open_q.pk}/progress/",
        (403, 405, 405, 405),
        "put",
    ),
    "api/v1/questions/<int:pk>/rating/": (
        "/api/v1/questions/{w.open_q.pk}/rating/",
        (403, 405, 405, 405),
        "post",
    ),
    "api/v1/questions/<int:pk>/comments/": (
        "/api/v1/questions/{w.open_q.pk}/comments/",
        (200, 200, 200, 200),
        "post",
    ),
    "api/v1/questions/<int:pk>/difficulty/": (
        "/api/v1/questions/{w.open_q.pk}/difficulty/",
        (200, 200, 200, 200),
        "put",
    ),
    "api/v1/questions/<int:pk>/up-next/": (
        "/api/v1/questions/{w.open_q.pk}/up-next/",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/concepts/<slug:slug>/comments/": (
        "/api/v1/concepts/{w.concept.slug}/comments/",
        (200, 200, 200, 200),
        "post",
    ),
    "api/v1/comments/<int:pk>/": (
        "/api/v1/comments/{w.comment.pk}/",
        (403, 405, 405, 405),
        "patch delete",
    ),
    "api/v1/comments/<int:pk>/report/": (
        "/api/v1/comments/{w.comment.pk}/report/",
        (403, 405, 405, 405),
        "post",
    ),
    "api/v1/^tracks/$": ("/api/v1/tracks/", (200, 200, 200, 200), ""),
    "api/v1/^tracks\\.(?P<format>[a-z0-9]+)/?$": ("/api/v1/tracks.json", (200, 200, 200, 200), ""),
    "api/v1/^tracks/(?P<slug>[^/.]+)/$": (
        "/api/v1/tracks/{w.track.slug}/",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^tracks/(?P<slug>[^/.]+)\\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/tracks/{w.track.slug}.json",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^questions/$": ("/api/v1/questions/", (200, 200, 200, 200), ""),
    "api/v1/^questions\\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/questions.json",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^questions/(?P<pk>[^/.]+)/$": (
        "/api/v1/questions/{w.premium_q.pk}/",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^questions/(?P<pk>[^/.]+)\\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/questions/{w.premium_q.pk}.json",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^concepts/$": ("/api/v1/concepts/", (200, 200, 200, 200), ""),
    "api/v1/^concepts\\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/concepts.json",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^concepts/(?P<slug>[^/.]+)/$": (
        "/api/v1/concepts/{w.premium_concept.slug}/",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^concepts/(?P<slug>[^/.]+)\\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/concepts/{w.premium_concept.slug}.json",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^guides/$": ("/api/v1/guides/", (200, 200, 200, 200), ""),
    "api/v1/^guides\\.(?P<format>[a-z0-9]+)/?$": ("/api/v1/guides.json", (200, 200, 200, 200), ""),
    "api/v1/^guides/(?P<slug>[^/.]+)/$": (
        "/api/v1/guides/{w.guide.slug}/",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^guides/(?P<slug>[^/.]+)\\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/guides/{w.guide.slug}.json",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/": ("/api/v1/", (200, 200, 200, 200), ""),
    "api/v1/<drf_format_suffix:format>": ("/api/v1/.json", (200, 200, 200, 200), ""),
    "api/schema/": ("/api/schema/", (200, 200, 200, 200), ""),
    "api/docs/": ("/api/docs/", (200, 200, 200, 200), ""),
    "api/redoc/": ("/api/redoc/", (200, 200, 200, 200), ""),
    "api/redoc/redoc.standalone.js": ("/api/redoc/redoc.standalone.js", (200, 200, 200, 200), ""),
    "sitemap.xml": ("/sitemap.xml", (200, 200, 200, 200), ""),
    "": ("/", (200, 200, 200, 200), ""),
    "curriculum/": ("/curriculum/", (200, 200, 200, 200), ""),
    "search/": ("/search/?q=question", (200, 200, 200, 200), ""),
    "tracks/<slug:slug>/": ("/tracks/{w.track.slug}/", (200, 200, 200, 200), ""),
    "tracks/<slug:track_slug>/<int:number>/": (
        "/tracks/{w.track.slug}/3/",
        (301, 301, 301, 301),
        "",
    ),
    "tracks/<slug:track_slug>/<int:number>/<slug:slug>/": (
        "/tracks/{w.track.slug}/3/{w.premium_q.slug}/",
        (200, 200, 200, 200),
        "",
    ),
    "concepts/<slug:slug>/": ("/concepts/{w.premium_concept.slug}/", (200, 200, 200, 200), ""),
    "guides/": ("/guides/", (200, 200, 200, 200), ""),
    "guides/<slug:slug>/": ("/guides/{w.guide.slug}/", (200, 200, 200, 200), ""),
    "course/": ("/course/", (200, 200, 200, 200), ""),
    "course/<slug:part_slug>/<slug:slug>/": (
        "/course/sec-part/{w.premium_lesson.slug}/",
        (200, 200, 200, 200),
        "",
    ),
    "course/<slug:part_slug>/<slug:slug>/check/": (
        "/course/sec-part/{w.premium_lesson.slug}/check/",
        (405, 405, 405, 405),
        "post",
    ),
    "course/<slug:part_slug>/<slug:slug>/done/": (
        "/course/sec-part/{w.premium_lesson.slug}/done/",
        (302, 405, 405, 405),
        "post",
    ),
    "api/v1/^lessons/$": ("/api/v1/lessons/", (200, 200, 200, 200), ""),
    "api/v1/^lessons\\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/lessons.json",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^lessons/(?P<slug>[^/.]+)/$": (
        "/api/v1/lessons/{w.premium_lesson.slug}/",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/^lessons/(?P<slug>[^/.]+)\\.(?P<format>[a-z0-9]+)/?$": (
        "/api/v1/lessons/{w.premium_lesson.slug}.json",
        (200, 200, 200, 200),
        "",
    ),
    "api/v1/lessons/<slug:slug>/progress/": (
        "/api/v1/lessons/{w.premium_lesson.slug}/progress/",
        (403, 405, 405, 405),
        "put",
    ),
    "api/v1/lessons/<slug:slug>/check/": (
        "/api/v1/lessons/{w.premium_lesson.slug}/check/",
        (405, 405, 405, 405),
        "post",
    ),
}


@pytest.fixture
def world(db):
    owner = UserFactory()
    premium = UserFactory()
    grant_premium(user=premium, granted_by=None, reason="url table")
    users = {
        "anonymous": None,
        "free": owner,
        "premium": premium,
        "staff": UserFactory(is_staff=True),
    }
    return build_world(owner), users


def client_as(user, **kwargs) -> Client:
    c = Client(**kwargs)
    if user is not None:
        c.force_login(user)
    return c


def test_every_route_has_an_expectation():
    present = routes()
    assert [r for r in present if r not in URLS] == [], "add these routes to URLS"
    assert [r for r in URLS if r not in present] == [], "these routes are gone"


@pytest.mark.parametrize("role", ROLES)
def test_status_of_every_url(world, role):
    w, users = world
    client = client_as(users[role])
    column = ROLES.index(role)
    wrong = {}
    for route, (path, statuses, _) in URLS.items():
        got = client.get(path.format(w=w)).status_code
        if got != statuses[column]:
            wrong[route] = (got, statuses[column])
    assert wrong == {}, "route: (got, expected)"


CSRF_EXEMPT = {"payments/webhook/stripe/"}  # authenticated by Stripe's signature instead


# DRF views whose only renderer is an HTML template: their 403 body is a bare
# "403 Forbidden", so the refusal is told apart by the token test below (405 with it).
BARE_403 = {"api/docs/", "api/redoc/"}


def csrf_refusal(response, route: str = "") -> bool:
    return response.status_code == 403 and (b"CSRF" in response.content or route in BARE_403)


def test_every_unsafe_request_without_a_token_is_refused(world):
    """Every route, every unsafe method, signed in, no CSRF token: 403 CSRF, whatever the
    route does with the method (so a route that starts taking POST is already covered)."""
    w, users = world
    client = client_as(users["free"], enforce_csrf_checks=True)
    passed = {}
    for route, (path, _, _) in URLS.items():
        for method in ("post", "put", "patch", "delete"):
            r = getattr(client, method)(path.format(w=w), data={}, content_type="application/json")
            if route in CSRF_EXEMPT:  # an unsigned delivery: 400, or 405 for not-POST
                assert r.status_code == (400 if method == "post" else 405), (route, method)
            elif not csrf_refusal(r, route):
                passed[f"{method.upper()} {route}"] = r.status_code
    assert passed == {}, "answered without a CSRF token"


def test_the_token_is_what_was_missing(world):
    """With the token the same unsafe requests get past the CSRF check (so the refusals
    above are the CSRF check's, not something else's)."""
    w, users = world
    client = client_as(users["free"], enforce_csrf_checks=True)
    client.get("/accounts/password/change/")  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    refused = {}
    # Signing out last, so every other request is made as the signed-in user.
    for route, (path, _, methods) in sorted(URLS.items(), key=lambda kv: "logout" in kv[0]):
        if route in BARE_403:
            r = client.post(path, HTTP_X_CSRFTOKEN=token, content_type="application/json")
            assert r.status_code == 405, route
        for method in methods.split():
            if route in CSRF_EXEMPT:
                continue
            r = getattr(client, method)(
                path.format(w=w),
                data={"csrfmiddlewaretoken": token} if method == "post" else {},
                HTTP_X_CSRFTOKEN=token,
                **({"content_type": "application/json"} if route.startswith("api/") else {}),
            )
            if csrf_refusal(r):
                refused[f"{method.upper()} {route}"] = r.status_code
    assert refused == {}
