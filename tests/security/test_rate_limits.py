"""Rate limits the other suites do not already hold. Covered elsewhere: sign-in and
sign-up (tests/accounts/test_rate_limits.py), comment posting through the API and the
pages (tests/community/test_api.py, tests/community/test_views.py). Here: password
reset and calculator runs."""

from django.test import Client

RUNS = "/api/v1/calculators/roofline/runs/"
BODY = {"inputs": {"peak_tflops": 989, "bandwidth_tbs": 3.35, "intensity": 100}}


def test_password_reset_is_rate_limited_per_address(client, verified_user):
    # allauth: 5 per hour per email, 20 per hour per IP.
    codes = [
        client.post(
            "/accounts/password/reset/", {"email": verified_user.email}, REMOTE_ADDR="203.0.113.5"
        ).status_code
        for _ in range(7)
    ]
    assert codes[0] == 302 and codes[-1] == 429, codes


def test_password_reset_is_rate_limited_per_network(client, db):
    codes = [
        client.post(
            "/accounts/password/reset/", {"email": f"p{i}@example.com"}, REMOTE_ADDR="203.0.113.6"
        ).status_code
        for i in range(22)
    ]
    assert codes[0] == 302 and codes[-1] == 429, codes


def test_calculator_runs_are_rate_limited_per_user(settings, client_for, free_user):
    settings.CALCULATOR_RUN_RATE = "3/m"
    client = client_for(free_user)
    codes = [client.post(RUNS, BODY, content_type="application/json") for _ in range(4)]
    assert [r.status_code for r in codes[:3]] != [429] * 3
    assert all(r.status_code in (200, 202) for r in codes[:3])
    refused = codes[3]
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert refused.json()["error"]["code"] == "rate_limited"
    # Someone else is not held up by this user's count.
    other = Client(REMOTE_ADDR="198.51.100.7")
    assert other.post(RUNS, BODY, content_type="application/json").status_code in (200, 202)


def test_anonymous_calculator_runs_are_rate_limited_per_address(settings, db):
    settings.CALCULATOR_RUN_RATE = "2/m"
    client = Client(REMOTE_ADDR="203.0.113.8")
    codes = [client.post(RUNS, BODY, content_type="application/json").status_code for _ in range(3)]
    assert codes[2] == 429 and codes[0] in (200, 202), codes
