"""Review: malformed ids sent to the bookmark toggle get a 400 naming the field, not a 500."""

import pytest

from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "value",
    [
        "²",  # str.isdigit() is True, int() raises
        "٣",  # Arabic-Indic digit: isdigit() and int() accept it, but it is not an id we issue
        "9" * 5000,  # more digits than int() converts
    ],
)
@pytest.mark.parametrize("field", ["question", "concept"])
@pytest.mark.parametrize("signed_in", [False, True])
def test_bookmark_toggle_rejects_malformed_ids(client_for, user, field, value, signed_in):
    QuestionFactory()
    c = client_for(user if signed_in else None, raise_request_exception=False)
    r = c.post("/community/bookmarks/toggle/", {field: value}, HTTP_ACCEPT="application/json")
    assert r.status_code == 400
    body = r.json()["error"]
    assert body["code"] == "invalid"
    assert "question" in body["fields"]


def test_bookmark_toggle_still_accepts_a_real_id(client_for, user):
    q = QuestionFactory()
    r = client_for(user).post(
        "/community/bookmarks/toggle/", {"question": str(q.pk)}, HTTP_ACCEPT="application/json"
    )
    assert r.status_code == 200
    assert r.json()["bookmarked"] is True
