"""Edge rules of purchases (``inferview.access.services``): malformed sessions and events.

Each test's name states the rule. They were written against the mutants that survived
``test_purchase_rules.py`` (docs/mutation.md): the branches a malformed or unusual
checkout session takes, which the other tests reached only through the success page.
Where the log record is what an operator has to go on (a paid checkout that grants
nothing), the record's text is the behaviour and is asserted whole.
"""

import datetime
import logging
from decimal import Decimal

import pytest
from django.utils import timezone

from inferview.access import services
from inferview.access.models import Entitlement, Purchase, WebhookEvent
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LOGGER = "inferview.access.services"


def session(session_id="cs_edge_1", *, user=None, pi="pi_edge_1", **fields):
    """A paid checkout session as the provider sends it (user: the client reference)."""
    obj = {
        "id": session_id,
        "object": "checkout.session",
        "payment_status": "paid",
        "payment_intent": pi,
        "amount_total": 2500,
        "currency": "usd",
        "metadata": {"plan": "premium"},
        **fields,
    }
    if user is not None:
        obj["client_reference_id"] = str(user.pk)
    return obj


def fulfil(obj, provider="stripe"):
    return services.fulfil_checkout(provider_name=provider, session=obj)


def messages(caplog):
    return [record.getMessage() for record in caplog.records if record.name == LOGGER]


@pytest.fixture
def buyer():
    return UserFactory()


# --- the session id -----------------------------------------------------------------------


@pytest.mark.parametrize("bad_id", [None, "", 12345, "cs_\x00nul", "cs_" + "x" * 300])
def test_a_session_without_a_usable_id_grants_nothing_and_says_so(buyer, caplog, bad_id):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    assert fulfil(session(bad_id, user=buyer)) is None
    assert not Purchase.objects.exists()
    assert not Entitlement.objects.exists()
    assert messages(caplog) == ["checkout event without a usable session id; ignored"]


def test_a_numeric_session_id_does_not_complete_a_purchase_stored_under_its_digits(buyer):
    """The id is refused before any lookup, so the database never compares 12345 to "12345"."""
    Purchase.objects.create(
        user=buyer, provider="stripe", checkout_session_id="12345", currency="USD", amount=2500
    )
    assert fulfil(session(12345, user=buyer)) is None
    assert Purchase.objects.get().status == Purchase.Status.PENDING
    assert not Entitlement.objects.exists()


def test_an_expiry_without_a_usable_session_id_expires_nothing(buyer):
    Purchase.objects.create(
        user=buyer, provider="stripe", checkout_session_id="cs_edge_1", currency="USD", amount=2500
    )
    event = {
        "id": "evt_exp_bad",
        "type": "checkout.session.expired",
        "data": {"object": {"object": "checkout.session", "status": "expired"}},
    }
    assert services.process_event(provider_name="stripe", event=event) == "processed"
    assert Purchase.objects.get().status == Purchase.Status.PENDING


# --- rebuilding a purchase we have no row for ---------------------------------------------


def test_a_lost_purchase_is_rebuilt_from_the_session_and_granted(buyer):
    purchase = fulfil(session(user=buyer))
    assert purchase.status == Purchase.Status.PAID
    assert (purchase.user, purchase.provider, purchase.currency, purchase.amount) == (
        buyer,
        "stripe",
        "USD",
        2500,
    )
    assert Entitlement.objects.get(purchase=purchase).user == buyer


def refused(session_id):
    """The row a refused unknown session leaves for a human (the admin lists it)."""
    purchase = Purchase.objects.get(checkout_session_id=session_id)
    assert purchase.status == Purchase.Status.REFUSED
    assert not Entitlement.objects.exists()
    return purchase


def test_a_session_without_a_client_reference_grants_nothing_and_names_the_checkout(caplog):
    caplog.set_level(logging.ERROR, logger=LOGGER)
    assert fulfil(session("cs_nobody")).status == Purchase.Status.REFUSED
    assert refused("cs_nobody").note == "has no user we know"
    assert messages(caplog) == ["checkout cs_nobody has no user we know; not granting"]


def test_the_user_id_in_metadata_stands_in_for_a_missing_client_reference(buyer):
    purchase = fulfil(session(metadata={"user_id": str(buyer.pk), "plan": "premium"}))
    assert purchase.user == buyer
    assert purchase.status == Purchase.Status.PAID


@pytest.mark.parametrize(
    "reference",
    [
        pytest.param(lambda pk: Decimal(pk), id="a Decimal"),
        pytest.param(lambda pk: float(pk), id="a float"),
        pytest.param(lambda pk: [pk], id="a list"),
        pytest.param(lambda pk: True, id="a bool"),
        pytest.param(lambda pk: f" {pk}", id="a padded string"),
        pytest.param(lambda pk: "\u0661", id="an Arabic-Indic digit"),
    ],
)
def test_a_client_reference_that_is_neither_text_of_ascii_digits_nor_an_integer_names_nobody(
    buyer, reference
):
    obj = session("cs_odd_ref")
    obj["client_reference_id"] = reference(buyer.pk)
    fulfil(obj)
    assert refused("cs_odd_ref").user is None


def test_an_integer_client_reference_names_its_user(buyer):
    obj = session("cs_int_ref")
    obj["client_reference_id"] = buyer.pk
    assert fulfil(obj).user == buyer


def test_a_client_reference_of_eighteen_digits_is_looked_up():
    big = UserFactory(id=10**17)  # 18 digits
    assert fulfil(session("cs_big", user=big)).user == big


def test_a_client_reference_of_nineteen_digits_names_nobody_even_if_such_an_id_exists(caplog):
    # The cut is on the length, before int(): 19 digits may overflow a bigint.
    huge = UserFactory(id=10**18)  # 19 digits, still a valid bigint
    caplog.set_level(logging.ERROR, logger=LOGGER)
    fulfil(session("cs_huge", user=huge))
    assert refused("cs_huge").user is None
    assert messages(caplog) == ["checkout cs_huge has no user we know; not granting"]


@pytest.mark.parametrize(
    "fields",
    [{"currency": "dollars"}, {"currency": None}, {"amount_total": "2500"}, {"amount_total": -1}],
)
def test_a_lost_purchase_without_a_usable_amount_or_currency_is_not_rebuilt(buyer, caplog, fields):
    caplog.set_level(logging.ERROR, logger=LOGGER)
    fulfil(session("cs_no_amount", user=buyer, **fields))
    assert refused("cs_no_amount").note == "has no usable amount or currency"
    assert messages(caplog) == [
        "checkout cs_no_amount has no usable amount or currency; not granting"
    ]


def test_a_lost_purchase_is_rebuilt_beside_the_other_pending_purchases(buyer):
    """The rebuilt row is found again by its own session id, not by the provider alone."""
    unrelated = Purchase.objects.create(
        user=buyer, provider="stripe", checkout_session_id="cs_else", currency="USD", amount=2500
    )
    purchase = fulfil(session("cs_rebuilt", user=buyer))
    assert (purchase.checkout_session_id, purchase.status) == ("cs_rebuilt", Purchase.Status.PAID)
    unrelated.refresh_from_db()
    assert unrelated.status == Purchase.Status.PENDING


# --- the payment intent -------------------------------------------------------------------


def recorded_intent(payment_intent, event_id="evt_pi"):
    event = {
        "id": event_id,
        "type": "charge.dispute.created",
        "data": {"object": {"id": "dp_1", "object": "dispute", "payment_intent": payment_intent}},
    }
    services.process_event(provider_name="stripe", event=event)
    return WebhookEvent.objects.get(event_id=event_id).payment_intent_id


def test_an_expanded_payment_intent_is_read_from_its_id():
    assert recorded_intent({"id": "pi_expanded", "object": "payment_intent"}) == "pi_expanded"


@pytest.mark.parametrize(
    "payment_intent",
    [
        pytest.param({"object": "payment_intent"}, id="expanded without an id"),
        pytest.param({"id": 42}, id="expanded with a number"),
        pytest.param(42, id="a number"),
        pytest.param("pi_\x00nul", id="a NUL"),
        pytest.param("pi_" + "x" * 300, id="over-long"),
    ],
)
def test_an_event_whose_payment_intent_is_not_a_clean_string_records_none(payment_intent):
    assert recorded_intent(payment_intent) == ""


def test_a_completion_whose_payment_intent_is_malformed_grants_without_one(buyer):
    purchase = fulfil(session(user=buyer, pi={"object": "payment_intent"}))
    assert purchase.status == Purchase.Status.PAID
    assert purchase.payment_intent_id == ""


# --- refunds and disputes recorded before the completion ----------------------------------


def record(event_type, event_id, *, provider="stripe", pi="pi_edge_1", **fields):
    obj = {"id": f"obj_{event_id}", "payment_intent": pi, **fields}
    event = {"id": event_id, "type": event_type, "data": {"object": obj}}
    services.process_event(provider_name=provider, event=event)
    return WebhookEvent.objects.get(provider=provider, event_id=event_id)


def test_the_earliest_received_revocation_decides_the_status_not_the_row_id(buyer):
    refund = record("charge.refunded", "evt_refund", refunded=True)
    dispute = record("charge.dispute.created", "evt_dispute")
    assert refund.pk < dispute.pk
    now = timezone.now()
    WebhookEvent.objects.filter(pk=dispute.pk).update(received_at=now - datetime.timedelta(hours=1))
    WebhookEvent.objects.filter(pk=refund.pk).update(received_at=now)
    purchase = fulfil(session(user=buyer))
    assert purchase.status == Purchase.Status.DISPUTED
    assert not Entitlement.objects.exists()


def test_a_refund_recorded_by_another_provider_does_not_revoke_this_one(buyer):
    record("charge.refunded", "evt_local_refund", provider="local", refunded=True)
    purchase = fulfil(session(user=buyer), provider="stripe")
    assert purchase.status == Purchase.Status.PAID
    assert Entitlement.objects.get(purchase=purchase).revoked_at is None


@pytest.mark.parametrize("payload", [{}, {"data": {}}], ids=["no data", "no object"])
def test_a_refund_recorded_without_its_object_is_not_taken_as_full(buyer, payload):
    """Rows kept without their object (an older payload shape) cannot prove a full refund."""
    WebhookEvent.objects.create(
        provider="stripe",
        event_id="evt_bare",
        type="charge.refunded",
        payment_intent_id="pi_edge_1",
        payload=payload,
    )
    purchase = fulfil(session(user=buyer))
    assert purchase.status == Purchase.Status.PAID


def test_a_dispute_recorded_without_its_object_still_revokes(buyer):
    WebhookEvent.objects.create(
        provider="stripe",
        event_id="evt_bare_dispute",
        type="charge.dispute.created",
        payment_intent_id="pi_edge_1",
        payload={},
    )
    purchase = fulfil(session(user=buyer))
    assert purchase.status == Purchase.Status.DISPUTED
    assert not Entitlement.objects.exists()


def test_a_recheck_that_finds_no_purchase_yet_schedules_no_further_recheck(
    django_capture_on_commit_callbacks,
):
    """Only the first revocation schedules a recheck; a recheck rescheduling would loop."""
    record("charge.refunded", "evt_early_refund", refunded=True)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        result = services.apply_revocations(provider_name="stripe", payment_intent_id="pi_edge_1")
    assert result is None
    assert callbacks == []


# --- staff grants and revocations ---------------------------------------------------------


def test_a_staff_grant_without_a_reason_is_refused_with_that_reason(buyer):
    with pytest.raises(ValueError, match=r"^a reason is required to grant premium$"):
        services.grant_premium(user=buyer, granted_by=None, reason="  ")
    assert not Entitlement.objects.exists()


def test_a_staff_revocation_without_a_reason_is_refused_with_that_reason(buyer):
    entitlement = services.grant_premium(user=buyer, granted_by=None, reason="gift")
    with pytest.raises(ValueError, match=r"^a reason is required to revoke premium$"):
        services.revoke_entitlement(entitlement=entitlement, revoked_by=None, reason="")
    entitlement.refresh_from_db()
    assert entitlement.revoked_at is None


def test_revoking_one_entitlement_leaves_everyone_elses_active(buyer):
    mine = services.grant_premium(user=buyer, granted_by=None, reason="gift")
    theirs = services.grant_premium(user=UserFactory(), granted_by=None, reason="press")
    assert services.revoke_entitlement(entitlement=mine, revoked_by=None, reason="support")
    theirs.refresh_from_db()
    assert mine.revoked_at is not None
    assert theirs.revoked_at is None
