"""schemathesis over the OpenAPI schema, in-process through the WSGI app (no network), as
anonymous, free and premium users: no server errors, every answer described by the
schema (status codes, content types, bodies, headers, valid data accepted and invalid
data refused, public operations not declared as needing sign-in), and locked text never in
a response for a reader who may not read it: a canary string sits in the premium answer
and the premium concept, another in the sign-in answer, and three in four generated ids are bent
onto those rows so the fuzzer reads them rather than only 404s.

Positive and negative data with no check excluded: a schema-valid request must be taken
and an invalid one refused. Three operations may also answer a schema-valid request 422,
each documenting the cross-field rules that answer covers (see ``CONFIG``). A stateful
test chains calls along the links schemathesis infers and those ``inferview.api.schema``
adds, ``SCENARIOS`` scenarios of up to ``STEPS`` calls per role.

Budget: the examples and fuzzing phases, ``EXAMPLES`` cases per operation and role (the
coverage phase, several hundred deterministic cases per operation, is left to a manual
run: ``FUZZ_COVERAGE=1``). ``CASES`` counts what ran; the module's last test prints it and
fails if the fuzzer ran fewer cases than the operations it was given.
"""

from __future__ import annotations

import collections
import os
import zlib

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from inferview.access.services import grant_premium
from tests.community.factories import CommentFactory
from tests.community.practice_data import POINTS, SPEC
from tests.factories import (
    ConceptFactory,
    GuideItemFactory,
    LessonFactory,
    QuestionFactory,
    TrackFactory,
    UserFactory,
)

# Premium text (never for anonymous or free) and sign-in text (never for anonymous).
CANARY = "CANARY-7f3a-premium-text-never-leaves"
ACCOUNT_CANARY = "CANARY-2b9e-account-text-never-leaves"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "8"))
ROLES = ["anonymous", "free", "premium"]

#: The statuses that answer a schema-valid request without refusing it as malformed.
ACCEPTING = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]

CONFIG = SchemathesisConfig.from_dict(
    {
        "seed": 14,
        # Positive and negative data: valid requests must be accepted, invalid ones refused.
        "generation": {"mode": "all"},
        "phases": {"coverage": {"enabled": bool(os.environ.get("FUZZ_COVERAGE"))}},
        "operations": [
            {
                # A calculator run's body is documented exactly per calculator (names,
                # types, ranges, choices, sweeps: calculators.api_schema), and a body the
                # schema refuses is a 400. A schema-valid body can still break a rule that
                # spans fields (kv_heads must not exceed heads, lists must broadcast, an
                # input required unless the preset fills it): each operation's description
                # lists those rules and documents their answer, 422, so 422 counts as a
                # deliberate answer here, never 400.
                "include-operation-id-regex": "^calculators_runs_create_",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*ACCEPTING, "422"]}},
            },
            {
                # The same for a numeric answer: unit is one of the known units (an enum),
                # but which of them a question takes depends on the question named in the
                # body; the operation documents that rule and its 422.
                "include-path": "/api/v1/practice/answers/",
                "include-method": "POST",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*ACCEPTING, "422"]}},
            },
            {
                # And a lesson's check yourself: how many answers, and of which kind, is
                # the lesson's own (its items); the operation documents those rules, 422.
                "include-path": "/api/v1/lessons/{slug}/check/",
                "include-method": "POST",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*ACCEPTING, "422"]}},
            },
        ],
    }
)
APP = get_wsgi_application()
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", APP, config=CONFIG)

CASES: collections.Counter[str] = collections.Counter()
KNOWN: dict[str, list] = {}


#: The signed-in role's session id, set by each test; schemathesis applies it as the
#: schema's declared auth (cookieAuth), so its ignored_auth check can take it away again.
SESSION: dict[str, str] = {}


@schema.auth(refresh_interval=None)  # never cached: each test brings its own role
class SessionCookie:
    def get(self, case, context):
        return SESSION.get("id")

    def set(self, case, data, context):
        if data:
            case.cookies = {**(case.cookies or {}), "sessionid": data}


@schema.hook
def map_path_parameters(context, path_parameters):
    """Three in four generated ids are replaced by one that exists (the canary rows among
    them), so reads of real objects are fuzzed as well as 404s."""
    if not path_parameters:
        return path_parameters
    out = dict(path_parameters)
    for name, value in path_parameters.items():
        pool = KNOWN.get(name)
        pick = zlib.crc32(str(value).encode("utf-8", "surrogatepass"))  # stable across runs
        if pool and isinstance(value, int | str) and pick % 4:
            out[name] = pool[pick // 4 % len(pool)]
    return out


@schema.hook
def map_query(context, query):
    """A run's ``wait`` (0 to 10 s) is scaled down 200 times: inside the test's transaction
    a new run's task is never published, so the view would hold a valid wait for all of
    it. The value stays in range (schema-valid); waiting itself is tested in
    tests/calculators/test_api.py."""
    wait = (query or {}).get("wait")
    # Only an in-range number: a negative case's out-of-range wait stays as generated.
    if isinstance(wait, int | float) and not isinstance(wait, bool) and 0 <= wait <= 10:
        return {**query, "wait": wait / 200}
    return query


def canary_in(access: str) -> str:
    return {"open": "open to all", "account": ACCOUNT_CANARY, "premium": CANARY}[access]


@pytest.fixture
def content(db):
    track = TrackFactory(slug="fuzz-track")
    concepts = [
        ConceptFactory(slug="open-concept"),
        ConceptFactory(slug="premium-concept", access="premium", body=f"Locked {CANARY} body."),
    ]
    questions = []
    for n, access in enumerate(["open", "account", "premium"], start=1):
        answer = {
            "open": "An open answer.",
            "account": f"Answer {n}: {ACCOUNT_CANARY}.",
            "premium": f"Answer {n}: {CANARY}.",
        }[access]
        # Every question can be practised with numbers and has key points, the premium
        # and sign-in ones with their canary among the points (gated like the answer).
        points = [*POINTS[:2], f"Point {n} of this answer: {canary_in(access)}."]
        q = QuestionFactory(
            track=track,
            number=n,
            access=access,
            answer=answer,
            kind="calculation",
            practice=SPEC,
            key_points=points,
        )
        q.concepts.set(concepts)
        questions.append(q)
    GuideItemFactory(section__guide__slug="fuzz-guide")  # guides are open to everyone
    # Lessons: an open one to check and mark done, a premium one whose body is locked.
    LessonFactory(slug="open-lesson", access="open")
    LessonFactory(slug="premium-lesson", access="premium", body=f"## Locked\n\n{CANARY} body.")
    author = UserFactory()
    comments = [CommentFactory(question=q, author=author) for q in questions]
    KNOWN.clear()
    KNOWN.update(
        id=[q.pk for q in questions] + [c.pk for c in comments],
        slug=[
            "fuzz-track",
            "open-concept",
            "premium-concept",
            "fuzz-guide",
            "decode_bound",
            "open-lesson",
            "premium-lesson",
        ],
    )
    return questions


@pytest.fixture
def django_wsgi(db):
    # The test runs inside one transaction; the handler must not close its connection.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture(params=ROLES)
def role_cookies(request, db):
    role = request.param
    if role == "anonymous":
        return role, {}
    user = UserFactory()
    if role == "premium":
        grant_premium(user=user, granted_by=None, reason="fuzz fixture")
    c = Client()
    c.force_login(user)
    return role, {"sessionid": c.cookies["sessionid"].value}


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api(case, role_cookies, content, django_wsgi):
    role, cookies = role_cookies
    SESSION.clear()
    SESSION.update({"id": cookies["sessionid"]} if cookies else {})
    response = case.call_and_validate()
    CASES[role] += 1
    if role == "premium" and CANARY in response.text:
        CASES["premium saw the canary"] += 1
    if role != "premium":
        assert CANARY not in response.text, (case.path, response.text[:500])
    if role == "anonymous":
        assert ACCOUNT_CANARY not in response.text, (case.path, response.text[:500])


#: Scenarios per role and steps per scenario for the stateful test: bounded so the whole
#: module stays under about three minutes on two cores (FUZZ_STATEFUL scales it up by hand).
SCENARIOS = int(os.environ.get("FUZZ_STATEFUL", "20"))
STEPS = 6


class Workflow(schema.as_state_machine()):  # type: ignore[misc]
    """Chains of calls along the links schemathesis infers (ids and slugs from responses,
    Location headers such as a queued run's): every response checked as in test_api, and
    the canaries kept from readers who may not read them."""

    role = "anonymous"

    def validate_response(self, response, case, additional_checks=None, **kwargs):
        super().validate_response(response, case, additional_checks, **kwargs)
        CASES[f"stateful {self.role}"] += 1
        if self.role != "premium":
            assert CANARY not in response.text, (case.path, response.text[:500])
        if self.role == "anonymous":
            assert ACCOUNT_CANARY not in response.text, (case.path, response.text[:500])


def test_stateful(role_cookies, content, django_wsgi):
    role, cookies = role_cookies
    SESSION.clear()
    SESSION.update({"id": cookies["sessionid"]} if cookies else {})
    machine = type(f"Workflow_{role}", (Workflow,), {"role": role})
    machine.run(
        settings=settings(
            max_examples=SCENARIOS,
            stateful_step_count=STEPS,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
    )
    assert CASES[f"stateful {role}"] > 0


def test_zz_cases_ran():
    """Runs last in this module (pytest keeps file order): the count is the report's."""
    print(f"\nschemathesis cases run: {dict(CASES)} (examples per operation: {EXAMPLES})")
    if all(CASES[role] and CASES[f"stateful {role}"] for role in ROLES):  # the whole module
        assert min(CASES[role] for role in ROLES) >= 100, CASES
        # every role walked its scenarios: at least one call per scenario
        assert min(CASES[f"stateful {role}"] for role in ROLES) >= SCENARIOS, CASES
        # The canary is reachable, so its absence for the other roles means something.
        assert CASES["premium saw the canary"] > 0, CASES
