"""Every calculator in the brief answers through the kernel, the CLI, the API and its page,
and all four agree on the numbers."""

import json
import math
from io import StringIO

import pytest
from django.core.management import call_command

from calculators.compute import run_inline
from calculators.execution import execute_run
from calculators.kernels import KERNELS
from calculators.specs import SPECS
from tests.calculators.brief import BRIEF_SLUGS


def same_numbers(stored, computed) -> bool:
    """Equal, except that a number may come back from PostgreSQL's jsonb as an exact
    integer (6.3e24 is stored as numeric 6300000000000000000000000): compare numbers to
    1 part in 10^12, everything else exactly."""
    if isinstance(stored, dict) and isinstance(computed, dict):
        return stored.keys() == computed.keys() and all(
            same_numbers(stored[k], computed[k]) for k in stored
        )
    if isinstance(stored, list) and isinstance(computed, list):
        return len(stored) == len(computed) and all(map(same_numbers, stored, computed))
    numbers = (int, float)
    if (
        isinstance(stored, numbers)
        and isinstance(computed, numbers)
        and not isinstance(stored, bool)
    ):
        return math.isclose(stored, computed, rel_tol=1e-12)
    return stored == computed


def cli_args(example: dict) -> list[str]:
    def text(v):
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, list):
            return ",".join(text(x) for x in v)
        return str(v)

    return [f"{k}={text(v)}" for k, v in example.items()]


def test_every_calculator_of_the_brief_exists():
    assert set(SPECS) == set(BRIEF_SLUGS) and set(KERNELS) == set(BRIEF_SLUGS)


@pytest.mark.parametrize("slug", sorted(BRIEF_SLUGS))
def test_cli_json_matches_the_kernel(slug):
    expected = run_inline(slug, dict(SPECS[slug].example))["outputs"]
    out = StringIO()
    call_command("calc", slug, *cli_args(dict(SPECS[slug].example)), "--json", stdout=out)
    assert json.loads(out.getvalue()) == expected
    assert expected  # a calculator with no outputs would pass vacuously


@pytest.mark.django_db
@pytest.mark.parametrize("slug", sorted(BRIEF_SLUGS))
def test_api_run_matches_the_kernel_and_the_page_renders(
    client, published, slug, django_capture_on_commit_callbacks
):
    expected = run_inline(slug, dict(SPECS[slug].example))["outputs"]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/v1/calculators/{slug}/runs/",
            json.dumps({"inputs": dict(SPECS[slug].example)}),
            content_type="application/json",
        )
    assert response.status_code == 202, response.content
    run_id = response.json()["id"]
    assert published == [run_id]
    assert execute_run(run_id=run_id) == "done"
    run = client.get(f"/api/v1/calculators/runs/{run_id}/").json()
    assert run["status"] == "done"
    assert same_numbers(run["result"]["outputs"], expected)
    page = client.get(f"/calculators/{slug}/runs/{run_id}/")
    assert page.status_code == 200 and b"<svg" in page.content
