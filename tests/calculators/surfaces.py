"""serving_estimate's outputs for one set of inputs through each surface a user has: the
API (run by the task when queued), ``manage.py calc`` and the page. Shared by the tests of
its terms (MoE, pools, admission, step composition)."""

from __future__ import annotations

import json
from io import StringIO

from django.core.management import call_command


def _arg(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def api_cli_page(client, inputs: dict, preset: str) -> tuple[dict, dict, str]:
    """serving_estimate's outputs for the same inputs through the API (run by the task
    when queued) and ``manage.py calc``, and the page's HTML."""
    from calculators.tasks import execute_run

    response = client.post(
        "/api/v1/calculators/serving_estimate/runs/",
        json.dumps({"inputs": inputs, "preset": preset}),
        content_type="application/json",
    )
    assert response.status_code in (200, 202), response.content[:400]
    body = response.json()
    if response.status_code == 202:
        execute_run(run_id=body["id"])
        body = client.get(f"/api/v1/calculators/runs/{body['id']}/").json()
    out = StringIO()
    args = [f"{k}={_arg(v)}" for k, v in inputs.items()]
    call_command("calc", "serving_estimate", *args, "--preset", preset, "--json", stdout=out)
    query = "&".join(f"{k}={_arg(v)}" for k, v in inputs.items())
    page = client.get(f"/calculators/serving_estimate/?{query}&preset={preset}&run=1")
    return body["result"]["outputs"], json.loads(out.getvalue()), page.content.decode()
