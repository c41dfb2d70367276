"""Each calculator's run operation in the OpenAPI schema, and the API held to it: a body
the schema refuses is a 400 naming the field, a schema-valid body is run or, when it
breaks a rule listed in the operation's description, a 422 (calculators.api_schema)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from calculators.api_schema import always_required, body_problems, run_body_schema
from calculators.specs import SPECS

pytestmark = pytest.mark.django_db


def post(client, slug, body, query=""):
    return client.post(
        f"/api/v1/calculators/{slug}/runs/{query}",
        json.dumps(body),
        content_type="application/json",
    )


def as_json_schema(schema):
    """OpenAPI 3.0's ``nullable`` as JSON Schema, so jsonschema can judge a body."""
    if isinstance(schema, list):
        return [as_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: as_json_schema(v) for k, v in schema.items() if k != "nullable"}
    if schema.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def conforms(spec, body) -> bool:
    validator = jsonschema.Draft4Validator(as_json_schema(run_body_schema(spec)))
    return validator.is_valid(body)


@pytest.fixture(scope="module")
def paths():
    from django.test import Client

    return Client().get("/api/schema/", {"format": "json"}).json()["paths"]


def test_every_calculator_has_its_own_operation_with_its_inputs(paths):
    for slug, spec in SPECS.items():
        operation = paths[f"/api/v1/calculators/{slug}/runs/"]["post"]
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        assert set(body["properties"]["inputs"]["properties"]) >= set(spec.input_names)
        assert body["properties"]["inputs"]["additionalProperties"] is False
        assert "422" in operation["responses"] and "cannot express" in operation["description"]
    assert "/api/v1/calculators/{slug}/runs/" not in paths


def test_the_schema_states_ranges_choices_sweeps_and_required_inputs(paths):
    inputs = paths["/api/v1/calculators/serving_estimate/runs/"]["post"]["requestBody"]["content"][
        "application/json"
    ]["schema"]["properties"]["inputs"]
    concurrency, sweep = inputs["properties"]["concurrency"]["oneOf"]
    assert concurrency["type"] == "integer" and concurrency["minimum"] >= 1
    assert sweep["type"] == "array" and sweep["maxItems"] == 1_000_000
    pool = inputs["properties"]["pool"]["oneOf"][0]
    assert pool["enum"] == list(SPECS["serving_estimate"].input("pool").choices)
    decode = paths["/api/v1/calculators/decode_bound/runs/"]["post"]
    assert "kv_heads" in decode["description"]  # a cross-field rule, in words
    availability = paths["/api/v1/calculators/availability/runs/"]["post"]["requestBody"]
    assert availability["content"]["application/json"]["schema"]["properties"]["inputs"][
        "required"
    ] == ["availability_pct"]


@pytest.mark.parametrize("slug", list(SPECS))
def test_each_example_conforms_and_runs(client, slug):
    spec = SPECS[slug]
    body = {"inputs": dict(spec.example)}
    assert conforms(spec, body) and body_problems(spec, body) == {}
    response = post(client, slug, body)
    assert response.status_code in (200, 202), response.content


@pytest.mark.parametrize(
    ("slug", "body", "field"),
    [
        ("availability", {}, "availability_pct"),  # required whatever else is given
        ("availability", {"inputs": None}, "inputs"),
        ("availability", {"inputs": {"availability_pct": "99"}}, "availability_pct"),
        ("decode_bound", {"inputs": {"params_b": 8}, "preset": "h100"}, "preset"),
        ("decode_bound", {"inputs": {"params_b": 8}, "preset": "h100-sxm, h200"}, "preset"),
        ("decode_bound", {"inputs": {"params_b": 8}, "preset": 7}, "preset"),
        ("decode_bound", {"inputs": {"params_b": []}}, "params_b"),
        ("decode_bound", {"inputs": {"grid": ["batch_size"]}}, "grid"),
        ("kv_cache", {"inputs": {"config": ""}}, "config"),
        ("availability", {"inputs": {"availability_pct": 99}, "preset": "h200"}, "preset"),
        ("mig", {"inputs": {"profile": "3g.40gb"}, "preset": "h100-sxm,h200"}, "preset"),
    ],
)
def test_a_body_the_schema_refuses_is_a_400_naming_the_field(client, slug, body, field):
    spec = SPECS[slug]
    assert not conforms(spec, body)  # the schema refuses it too
    assert field in body_problems(spec, body)
    response = post(client, slug, body)
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"]


@pytest.mark.parametrize(
    ("slug", "body", "field"),
    [
        ("roofline", {}, "peak_tflops"),  # required unless a preset fills it
        ("decode_bound", {"inputs": {"params_b": [1, 2], "batch_size": [1, 2, 3]}}, "params_b"),
        (
            "serving_estimate",
            {"inputs": {**SPECS["serving_estimate"].example, "heads": 8, "kv_heads": 16}},
            "kv_heads",
        ),
        ("decode_bound", {"inputs": {"params_b": 8}, "preset": "h200,h200"}, "preset"),
    ],
)
def test_a_schema_valid_body_breaking_a_documented_rule_is_a_422(client, slug, body, field):
    spec = SPECS[slug]
    assert conforms(spec, body) and body_problems(spec, body) == {}
    response = post(client, slug, body)
    assert response.status_code == 422, response.content
    assert field in response.json()["error"]["fields"]


def test_two_presets_side_by_side_and_a_null_preset_conform(client):
    spec = SPECS["decode_bound"]
    for preset in ("h100-sxm,h200", None, ""):
        body = {"inputs": dict(spec.example), "preset": preset}
        assert conforms(spec, body) and body_problems(spec, body) == {}, preset


def test_always_required_leaves_out_what_a_preset_or_model_fills():
    assert always_required(SPECS["availability"]) == ["availability_pct"]
    assert "bandwidth_tbs" not in always_required(SPECS["roofline"])  # the preset fills it
    assert always_required(SPECS["decode_bound"]) == []  # model=... fills the rest


@pytest.mark.parametrize("wait", [" 5", "1_0", "nan", "Infinity", "", "11", "-1"])
def test_wait_is_a_plain_number_in_range(client, wait):
    body = {"inputs": {"availability_pct": 99.9}}
    response = post(client, "availability", body, f"?wait={wait}")
    assert response.status_code == 400 and "wait" in response.json()["error"]["fields"]


def test_wait_in_range_is_taken(client):
    response = post(client, "availability", {"inputs": {"availability_pct": 99.9}}, "?wait=0.01")
    assert response.status_code in (200, 202), response.content
