"""The API answers in its own error shape wherever it answers, and the schema says so."""

import pytest
from drf_spectacular.generators import SchemaGenerator


@pytest.mark.parametrize(
    "path", ["/api/v1/calculators/runs/not-a-uuid/", "/api/v1/no-such-thing/", "/api/"]
)
def test_unrouted_api_urls_answer_json_404(client, db, path):
    r = client.get(path)
    assert r.status_code == 404 and r["Content-Type"] == "application/json"
    assert r.json()["error"]["code"] == "not_found"


def test_pages_keep_their_html_404(client, db):
    r = client.get("/no-such-page/")
    assert r.status_code == 404 and r["Content-Type"].startswith("text/html")


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def test_every_operation_documents_its_errors(schema):
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            codes = set(op["responses"])
            assert "503" in codes, (method, path)
            if "{" in path:
                assert "404" in codes, (method, path)
            if method in ("post", "put", "patch", "delete"):
                assert {"400", "403", "429"} <= codes, (method, path)


def test_public_reads_are_not_declared_as_needing_sign_in(schema):
    for path in ("/api/v1/questions/{id}/comments/", "/api/v1/questions/{id}/difficulty/"):
        assert {} in schema["paths"][path]["get"]["security"], path
    assert {} not in schema["paths"]["/api/v1/questions/{id}/comments/"]["post"]["security"]


def test_presets_are_documented_as_the_list_they_are(schema, client):
    op = schema["paths"]["/api/v1/calculators/presets/"]["get"]
    body = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert body["type"] == "array"
    assert isinstance(client.get("/api/v1/calculators/presets/").json(), list)
