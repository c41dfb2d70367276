"""Review: NUL characters in query parameters are bad input, not a 500.

SQLite stores NUL happily; PostgreSQL refuses it in any text parameter, so before the
fix these requests were 500s in production (and in CI, which runs on PostgreSQL).
"""

import pytest

from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url",
    [
        "/search/?q=answer%00text",
        "/search/?q=answer&track=x%00y",
        "/api/v1/search/?q=answer%00text",
        "/api/v1/search/?q=answer&track=x%00y",
    ],
)
def test_search_with_nul_is_not_a_server_error(client_for, user, url):
    QuestionFactory()
    r = client_for(user, raise_request_exception=False).get(url)
    assert r.status_code in (200, 400), r.status_code


def test_api_search_names_the_field_with_a_nul(client):
    r = client.get("/api/v1/search/?q=a%00b")
    assert r.status_code == 400
    assert "q" in r.json()["error"]["fields"]


@pytest.mark.parametrize(
    "url",
    [
        "/premium/checkout/success/?session_id=cs_%00x",
        "/premium/checkout/local/cs_%00x/",
    ],
)
def test_checkout_pages_with_nul_are_404_not_500(client_for, user, url, settings):
    settings.DEBUG = True
    r = client_for(user, raise_request_exception=False).get(url)
    assert r.status_code == 404, r.status_code
