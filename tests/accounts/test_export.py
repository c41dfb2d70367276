"""The reader's data export: every kind of their rows, nothing of anyone else's, the same
document from the page and the API."""

import json

import pytest
from django.apps import apps
from django.conf import settings

from inferview.accounts import export
from tests.accounts.reader_rows import fill_reader
from tests.factories import ConceptFactory, QuestionFactory, UserFactory

#: Where each kind of row shows in the export, and the tag-bearing value that proves it is
#: the reader's own row.
EXPECTED = {
    "emails": lambda d, u, tag: [e["email"] for e in d["emails"]] == [u.email],
    "purchases": lambda d, u, tag: (
        [p["checkout_session_id"] for p in d["purchases"]] == [f"cs_{tag}"]
    ),
    "entitlements": lambda d, u, tag: [e["reason"] for e in d["entitlements"]] == [f"bought {tag}"],
    "bookmarks": lambda d, u, tag: len(d["bookmarks"]) == 1,
    "progress": lambda d, u, tag: [p["approach"] for p in d["progress"]] == [f"My approach {tag}"],
    "review_cards": lambda d, u, tag: len(d["review_cards"]) == 1,
    "reviews": lambda d, u, tag: [a["rating"] for a in d["reviews"]] == [3],
    "difficulty_votes": lambda d, u, tag: [v["felt"] for v in d["difficulty_votes"]] == ["harder"],
    "graded_answers": lambda d, u, tag: (
        [[a["value"] for a in g["answers"]] for g in d["graded_answers"]] == [[42.0]]
    ),
    "key_points": lambda d, u, tag: [k["made"] for k in d["key_points"]] == [[0, 2]],
    "mocks": lambda d, u, tag: (
        [[i["response"] for i in m["items"]] for m in d["mocks"]] == [[f"Mock answer {tag}"]]
    ),
    "cram_plans": lambda d, u, tag: (
        [[i["reason"] for i in p["items"]] for p in d["cram_plans"]] == [[f"cram {tag}"]]
    ),
    "comments": lambda d, u, tag: [c["body"] for c in d["comments"]] == [f"Comment {tag}"],
    "comment_reports": lambda d, u, tag: (
        [r["note"] for r in d["comment_reports"]] == [f"report {tag}"]
    ),
    "corrections": lambda d, u, tag: (
        [(c["quote"], c["note"]) for c in d["corrections"]]
        == [(f"Quote {tag}", f"Correction note {tag}")]
    ),
    "calculator_runs": lambda d, u, tag: (
        [r["inputs"] for r in d["calculator_runs"]] == [{"tag": tag}]
    ),
}


@pytest.fixture
def two_readers(db):
    question = QuestionFactory()
    concept = ConceptFactory()
    alice = UserFactory(email="alice@example.com", display_name="Alice")
    bob = UserFactory(email="bob@example.com", display_name="Bobby")
    fill_reader(alice, question, concept, tag="ALICE")
    fill_reader(bob, question, concept, tag="BOB")
    # Bob also reports the passage Alice reported: one correction, two reporters.
    from inferview.community.corrections.models import Correction, CorrectionReporter

    alices = Correction.objects.get(quote="Quote ALICE")
    CorrectionReporter.objects.create(correction=alices, user=bob, note="Bob agrees SECRETBOB")
    return alice, bob


def test_every_relation_to_the_user_is_exported_or_named_as_someone_elses():
    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    relations = {
        f"{model._meta.label}.{field.name}"
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if field.concrete and field.is_relation and field.related_model is user_model
    }
    missing = relations - export.covered() - set(export.NOT_THE_READERS)
    assert not missing, f"add a section to inferview/accounts/export.py for {sorted(missing)}"
    assert export.covered() <= relations  # no section names a relation that is gone


def test_the_export_holds_each_kind_of_the_readers_rows_and_nothing_of_anothers(
    client, two_readers
):
    alice, bob = two_readers
    client.force_login(alice)
    r = client.get("/account/export/")
    assert r.status_code == 200 and r["Content-Type"].startswith("application/json")
    assert r["Content-Disposition"].startswith('attachment; filename="inferview-data-')
    assert "no-store" in r["Cache-Control"] or "no-cache" in r["Cache-Control"]
    text = r.content.decode()
    data = json.loads(text)
    assert data["profile"]["email"] == "alice@example.com"
    assert data["profile"]["display_name"] == "Alice"
    assert data["profile"]["time_zone"] == ""
    for section, check in EXPECTED.items():
        assert check(data, alice, "ALICE"), section
    # Nothing of Bob's: his tag, his address, his note on the report they share.
    for leak in ("BOB", "bob@example.com", "Bobby", "SECRETBOB"):
        assert leak not in text
    # And no secrets of Alice's.
    assert alice.password not in text and "password" not in data["profile"]


def test_the_api_returns_the_same_document(client, two_readers):
    alice, _ = two_readers
    client.force_login(alice)
    page = json.loads(client.get("/account/export/").content)
    api = client.get("/api/v1/account/export/")
    assert api.status_code == 200
    body = api.json()
    for key in ("exported_at",):
        page.pop(key), body.pop(key)
    assert body == json.loads(json.dumps(page))


def test_anonymous_gets_401_from_the_api_and_sign_in_from_the_page(client, db):
    api = client.get("/api/v1/account/export/")
    assert api.status_code == 401 and api.json()["error"]["code"] == "not_authenticated"
    page = client.get("/account/export/")
    assert page.status_code == 302 and page["Location"].startswith("/accounts/login/")


def test_the_export_is_in_the_api_schema(client, db):
    schema = client.get("/api/schema/?format=json").json()
    op = schema["paths"]["/api/v1/account/export/"]["get"]
    ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    props = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"]
    assert {s.name for s in export.SECTIONS} <= set(props)
    assert "401" in op["responses"]


def test_the_export_reads_a_fixed_number_of_queries(
    client, two_readers, django_assert_max_num_queries
):
    alice, _ = two_readers
    client.force_login(alice)
    with django_assert_max_num_queries(40):
        assert client.get("/api/v1/account/export/").status_code == 200
