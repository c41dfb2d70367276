"""The calculators API, in-process (publication recorded, tasks executed by hand)."""

import json
import math

import pytest

from calculators.execution import execute_run
from calculators.models import CalculationRun
from calculators.specs import SPECS

pytestmark = pytest.mark.django_db
RUNS = "/api/v1/calculators/decode_bound/runs/"
BODY = {"inputs": {"params_b": 8, "bytes_per_param": 2}, "preset": "h100-sxm"}


def post(client, body, url=RUNS, raw=None):
    return client.post(
        url, raw if raw is not None else json.dumps(body), content_type="application/json"
    )


def assert_error(response, status, code, *fields):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    for name in fields:
        assert error["fields"][name], error
    return error


def test_list_has_every_calculator_with_specs(client):
    data = client.get("/api/v1/calculators/").json()
    assert [c["slug"] for c in data] == list(SPECS)
    decode = next(c for c in data if c["slug"] == "decode_bound")
    batch = next(i for i in decode["inputs"] if i["name"] == "batch_size")
    assert batch["integer"] and batch["min"] == 1 and batch["default"] == 1
    assert decode["preset_fills"] == {
        "peak_tflops": "peak",  # the preset's dense peak at the precision input
        "bandwidth_tbs": "bandwidth_tbs",
    }
    assert decode["runs_url"].endswith(RUNS)


def test_presets_have_sources_and_mig_profiles(client):
    data = {p["slug"]: p for p in client.get("/api/v1/calculators/presets/").json()}
    assert data["h100-sxm"]["bandwidth_tbs"] == 3.35 and data["h100-sxm"]["source"]
    assert "bandwidth_tbs" in data["l4"]["unconfirmed"]
    assert [p["name"] for p in data["h100-sxm"]["mig_profiles"]][0] == "1g.10gb"


def test_post_returns_202_with_run_url_and_enqueues_once_after_commit(
    client, published, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post(client, BODY)
    assert response.status_code == 202
    run = response.json()
    assert run["status"] == "queued" and response["Location"] == run["url"]
    assert run["inputs"]["bandwidth_tbs"] == 3.35 and run["inputs"]["peak_tflops"] == 989
    assert len(callbacks) == 1 and published == [run["id"]]


def test_identical_inputs_share_one_run_and_one_task(
    client, published, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = post(client, BODY).json()
        # The same figures spelled differently (no preset, 2.0 for 2) are the same inputs.
        second = post(
            client,
            {
                "inputs": {
                    "params_b": 8.0,
                    "bytes_per_param": 2,
                    "bandwidth_tbs": 3.35,
                    "peak_tflops": 989,
                }
            },
        ).json()
    assert first["id"] == second["id"]
    assert published == [first["id"]]
    assert CalculationRun.objects.count() == 1


def test_stored_result_answers_200_without_a_new_task(
    client, published, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run_id = post(client, BODY).json()["id"]
    execute_run(run_id=run_id)
    with django_capture_on_commit_callbacks(execute=True):
        again = post(client, BODY)
    assert again.status_code == 200
    assert again.json()["result"]["outputs"]["tokens_per_s_per_user"] == pytest.approx(209.375)
    assert published == [run_id]


def test_get_run_reports_status_and_result(client, published):
    run_id = post(client, BODY).json()["id"]
    assert client.get(f"/api/v1/calculators/runs/{run_id}/").json()["status"] == "queued"
    execute_run(run_id=run_id)
    data = client.get(f"/api/v1/calculators/runs/{run_id}/").json()
    assert data["status"] == "done" and data["result"]["steps"]
    assert data["finished_at"] and data["started_at"]


def test_unknown_run_404(client):
    response = client.get("/api/v1/calculators/runs/00000000-0000-0000-0000-000000000000/")
    assert_error(response, 404, "not_found")


@pytest.mark.django_db(transaction=True)  # on_commit must fire inside the request, as live
def test_broker_down_is_503_with_retry_after_and_the_next_request_retries(
    client, broker_down, monkeypatch
):
    response = post(client, BODY)
    assert_error(response, 503, "queue_unavailable")
    assert int(response["Retry-After"]) > 0
    run = CalculationRun.objects.get()
    assert run.status == "failed"
    # While the breaker is open the broker is not even tried: still a fast 503.
    assert post(client, BODY).status_code == 503 and broker_down.call_count == 1
    broker_down.side_effect = None  # the broker is back, and the backoff is over
    monkeypatch.setattr("calculators.services._broker_down_until", 0.0)
    response = post(client, BODY)
    assert response.status_code == 202 and broker_down.call_count == 2
    assert CalculationRun.objects.get().status == "queued"


# ---- bad input: every category names the field and the reason


def test_unknown_calculator(client):
    assert_error(
        post(client, BODY, url="/api/v1/calculators/nope/runs/"),
        404,
        "unknown_calculator",
        "calculator",
    )


@pytest.mark.parametrize(
    "inputs, field, reason",
    [
        ({"params_b": 8, "bytes_per_param": 2, "speed": 1}, "speed", "unknown input"),
        ({"params_b": "8", "bytes_per_param": 2}, "params_b", "not the string"),
        ({"params_b": True, "bytes_per_param": 2}, "params_b", "not a boolean"),
        ({"params_b": -8, "bytes_per_param": 2}, "params_b", "positive"),
        (
            {"params_b": 8, "bytes_per_param": 2, "bandwidth_efficiency": 2},
            "bandwidth_efficiency",
            "at most 1",
        ),
        ({"params_b": 8, "bytes_per_param": 2, "batch_size": 1.5}, "batch_size", "whole number"),
    ],
)
def test_bad_inputs_name_field_and_reason(client, published, inputs, field, reason):
    error = assert_error(
        post(client, {"inputs": inputs, "preset": "h100-sxm"}), 400, "invalid_input", field
    )
    assert reason in " ".join(error["fields"][field])
    assert CalculationRun.objects.count() == 0  # nothing reaches a worker unvalidated


@pytest.mark.parametrize(
    "inputs, field, reason",
    [
        ({"params_b": [1, 2], "bytes_per_param": [1, 2, 3]}, "params_b", "do not broadcast"),
        # required unless the model fills it: the schema cannot say so, the description does
        ({"bytes_per_param": 2}, "params_b", "required"),
    ],
)
def test_well_formed_inputs_breaking_a_cross_field_rule_are_422(
    client, published, inputs, field, reason
):
    """The body fits decode_bound's schema, so it is not a 400: it breaks a rule listed in
    the operation's description, answered 422 naming the field."""
    error = assert_error(
        post(client, {"inputs": inputs, "preset": "h100-sxm"}), 422, "invalid_input", field
    )
    assert reason in " ".join(error["fields"][field])
    assert CalculationRun.objects.count() == 0


@pytest.mark.parametrize(
    "token, reason", [("NaN", "NaN"), ("Infinity", "infinity"), ("-Infinity", "infinity")]
)
def test_nan_and_infinity_tokens(client, token, reason):
    raw = '{"inputs": {"params_b": TOKEN, "bytes_per_param": 2, "bandwidth_tbs": 3}}'
    raw = raw.replace("TOKEN", token)
    error = assert_error(post(client, None, raw=raw), 400, "invalid_input", "params_b")
    assert reason in error["fields"]["params_b"][0]


def test_sweep_over_a_million_points(client):
    body = {
        "inputs": {"params_b": 8, "bytes_per_param": 2, "batch_size": [1] * 1_000_001},
        "preset": "h100-sxm",
    }
    error = assert_error(post(client, body), 400, "invalid_input", "batch_size")
    assert "1,000,000" in error["fields"]["batch_size"][0]


def test_unknown_preset(client):
    assert_error(
        post(client, {"inputs": BODY["inputs"], "preset": "h100"}), 400, "invalid_input", "preset"
    )


def test_choices(client):
    error = assert_error(
        post(
            client,
            {"inputs": {"profile": "1g.5gb", "model_gb": 5}, "preset": "h100-sxm"},
            url="/api/v1/calculators/mig/runs/",
        ),
        422,  # both are known names; the pair is the rule (mig's description lists it)
        "invalid_input",
        "profile",
    )
    assert "not a MIG profile" in error["fields"]["profile"][0]


def test_bad_body_shapes(client):
    assert_error(post(client, None, raw="[1, 2]"), 400, "invalid_input", "body")
    assert_error(post(client, {**BODY, "extra": 1}), 400, "invalid_input", "extra")
    assert_error(post(client, {"inputs": [1, 2]}), 400, "invalid_input", "inputs")
    assert_error(post(client, None, raw="{not json"), 400, "parse_error")


def test_wait_parameter_validated(client):
    assert_error(
        client.post(RUNS + "?wait=x", json.dumps(BODY), content_type="application/json"),
        400,
        "invalid_input",
        "wait",
    )


def test_schema_documents_the_calculator_endpoints(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    paths = schema["paths"]
    assert "/api/v1/calculators/runs/{run_id}/" in paths
    # one run operation per calculator, each with its own inputs; the {slug} route is
    # served but not documented as one body for all (tests/calculators/test_api_schema.py)
    assert "/api/v1/calculators/{slug}/runs/" not in paths
    for slug in SPECS:
        assert set(paths[f"/api/v1/calculators/{slug}/runs/"]["post"]["responses"]) >= {
            "200",
            "202",
            "400",
            "422",
            "503",
        }


def test_result_is_strict_json_even_with_infinite_outputs(client, published):
    body = {
        "inputs": {
            "params_b": 1,
            "bytes_per_param": 2,
            "bandwidth_tbs": 1,
            "peak_tflops": 1,
            "kv_gb_per_seq": 10,
        }
    }
    run_id = post(client, body).json()["id"]
    execute_run(run_id=run_id)
    data = client.get(f"/api/v1/calculators/runs/{run_id}/").content.decode()
    assert "NaN" not in data and "Infinity" not in data
    assert json.loads(data)["result"]["outputs"]["compute_bound_batch"] is None
    assert not math.isnan(json.loads(data)["result"]["outputs"]["ms_per_token"])


def test_a_million_point_sweep_is_accepted(client, published):
    body = {
        "inputs": {"params_b": 8, "bytes_per_param": 2, "batch_size": list(range(1, 1_000_001))},
        "preset": "h100-sxm",
    }
    response = post(client, body)
    assert response.status_code == 202, response.content[:300]
