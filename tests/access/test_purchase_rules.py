"""Rules of purchases and entitlements (``inferview.access.services``), one per test.

Each test's name states the rule it checks. They call the services directly with
already-verified events (the signature is tested in test_webhooks.py), so each runs in
milliseconds; mutation testing (docs/mutation.md) found these rules unstated.
"""

import pytest

from inferview.access import policy, services
from inferview.access.models import Entitlement, Purchase, WebhookEvent
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def completed(session_id="cs_rule_1", pi="pi_rule_1", event_id="evt_c1", **fields):
    obj = {
        "id": session_id,
        "object": "checkout.session",
        "payment_status": "paid",
        "payment_intent": pi,
        "amount_total": 2500,
        "currency": "usd",
        **fields,
    }
    return {"id": event_id, "type": "checkout.session.completed", "data": {"object": obj}}


def refunded(pi="pi_rule_1", event_id="evt_r1", *, full=True):
    obj = {"id": "ch_1", "object": "charge", "refunded": full, "amount_refunded": 100}
    if pi is not None:
        obj["payment_intent"] = pi
    return {"id": event_id, "type": "charge.refunded", "data": {"object": obj}}


def disputed(pi="pi_rule_1", event_id="evt_d1"):
    obj = {"id": "dp_1", "object": "dispute", "payment_intent": pi}
    return {"id": event_id, "type": "charge.dispute.created", "data": {"object": obj}}


def apply(event, provider="stripe"):
    return services.process_event(provider_name=provider, event=event)


@pytest.fixture
def buyer():
    return UserFactory()


@pytest.fixture
def pending(buyer):
    return Purchase.objects.create(
        user=buyer, provider="stripe", checkout_session_id="cs_rule_1", currency="USD", amount=2500
    )


def tier_of(user):
    policy.forget_tier(user)
    return policy.viewer_tier(user)


def paid_purchase(buyer, *, pi, session="cs_paid", provider="stripe"):
    """A purchase that completed and granted premium, as fulfil_checkout leaves it."""
    purchase = Purchase.objects.create(
        user=buyer,
        provider=provider,
        checkout_session_id=session,
        currency="USD",
        amount=2500,
        status=Purchase.Status.PAID,
        payment_intent_id=pi,
    )
    Entitlement.objects.create(
        user=buyer, source=Entitlement.Source.PURCHASE, purchase=purchase, reason="paid"
    )
    return purchase


# --- revoking ---------------------------------------------------------------------------


def test_a_revocation_without_a_payment_intent_revokes_nothing(buyer):
    """The empty-payment-intent guard: a purchase paid without a recorded intent (blank)
    must not match a refund whose intent is blank too."""
    purchase = paid_purchase(buyer, pi="")
    result = services.revoke_purchase(
        provider_name="stripe", payment_intent_id="", status="refunded", reason="no intent"
    )
    assert result is None
    purchase.refresh_from_db()
    assert purchase.status == "paid" and purchase.revoked_at is None
    assert Entitlement.objects.get(purchase=purchase).revoked_at is None
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_a_full_refund_event_without_a_payment_intent_revokes_nothing(buyer):
    purchase = paid_purchase(buyer, pi="")
    assert apply(refunded(pi=None)) == "processed"
    purchase.refresh_from_db()
    assert purchase.status == "paid"
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_a_partial_refund_does_not_revoke(buyer):
    paid_purchase(buyer, pi="pi_rule_1")
    assert apply(refunded(full=False)) == "ignored"
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_a_refund_whose_refunded_flag_is_not_true_does_not_revoke(buyer):
    """Only ``refunded: true`` is a full refund; a truthy string is not."""
    paid_purchase(buyer, pi="pi_rule_1")
    assert apply(refunded(full="yes")) == "ignored"
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_a_partial_refund_before_completion_does_not_revoke(pending, buyer):
    """Out of order: a partial refund is recorded first; the completion still grants."""
    apply(refunded(full=False))
    apply(completed())
    pending.refresh_from_db()
    assert pending.status == "paid" and pending.revoked_at is None
    assert Entitlement.objects.get(purchase=pending).revoked_at is None
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_a_full_refund_after_a_partial_one_before_completion_is_born_revoked(pending, buyer):
    apply(refunded(full=False, event_id="evt_partial"))
    apply(refunded(full=True, event_id="evt_full"))
    apply(completed())
    pending.refresh_from_db()
    assert pending.status == "refunded" and pending.revoked_at is not None
    assert pending.paid_at is not None and pending.payment_intent_id == "pi_rule_1"
    assert not Entitlement.objects.filter(purchase=pending).exists()


def test_a_dispute_before_completion_is_born_disputed(pending, buyer):
    apply(disputed())
    apply(completed())
    pending.refresh_from_db()
    assert pending.status == "disputed" and pending.revoked_at is not None
    assert tier_of(buyer) == policy.Tier.FREE


def test_a_refund_without_an_intent_does_not_revoke_a_completion_without_one(pending, buyer):
    """A blank intent matches nothing: the completion of a session that carries no
    payment intent is not born revoked by an unrelated refund that carried none either."""
    apply(refunded(pi=None))
    apply(completed(pi=None))
    pending.refresh_from_db()
    assert pending.status == "paid" and pending.payment_intent_id == ""
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_a_refund_revokes_the_purchase_and_its_entitlement_with_the_reason(buyer):
    purchase = paid_purchase(buyer, pi="pi_rule_1")
    result = services.revoke_purchase(
        provider_name="stripe", payment_intent_id="pi_rule_1", status="refunded", reason="why"
    )
    assert result == purchase
    purchase.refresh_from_db()
    entitlement = Entitlement.objects.get(purchase=purchase)
    assert purchase.status == "refunded"
    assert purchase.revoked_at is not None and entitlement.revoked_at == purchase.revoked_at
    assert entitlement.revoked_reason == "why"
    assert tier_of(buyer) == policy.Tier.FREE


def test_the_refund_event_names_itself_in_the_revocation_reason(buyer):
    purchase = paid_purchase(buyer, pi="pi_rule_1")
    apply(refunded(event_id="evt_named"))
    assert Entitlement.objects.get(purchase=purchase).revoked_reason == (
        "charge.refunded (evt_named)"
    )


def test_a_dispute_marks_the_purchase_disputed(buyer):
    purchase = paid_purchase(buyer, pi="pi_rule_1")
    assert apply(disputed(event_id="evt_dispute_x")) == "processed"
    purchase.refresh_from_db()
    assert purchase.status == "disputed"
    assert Entitlement.objects.get(purchase=purchase).revoked_reason == (
        "charge.dispute.created (evt_dispute_x)"
    )


def test_a_second_revocation_keeps_the_first_status_and_reason(buyer):
    purchase = paid_purchase(buyer, pi="pi_rule_1")
    apply(refunded(event_id="evt_first"))
    purchase.refresh_from_db()
    first_revoked_at = purchase.revoked_at
    assert apply(disputed(event_id="evt_second")) == "processed"
    purchase.refresh_from_db()
    assert purchase.status == "refunded" and purchase.revoked_at == first_revoked_at
    assert "evt_first" in Entitlement.objects.get(purchase=purchase).revoked_reason


def test_a_disputed_purchase_stays_disputed_when_refunded_later(buyer):
    purchase = paid_purchase(buyer, pi="pi_rule_1")
    apply(disputed())
    apply(refunded())
    purchase.refresh_from_db()
    assert purchase.status == "disputed"


def test_a_revocation_only_touches_its_own_providers_purchase(buyer):
    local = paid_purchase(buyer, pi="pi_shared", session="cs_local", provider="local")
    result = services.revoke_purchase(
        provider_name="stripe", payment_intent_id="pi_shared", status="refunded", reason="x"
    )
    assert result is None
    local.refresh_from_db()
    assert local.status == "paid"


def test_an_already_revoked_entitlement_keeps_its_first_reason(buyer):
    purchase = paid_purchase(buyer, pi="pi_rule_1")
    entitlement = Entitlement.objects.get(purchase=purchase)
    services.revoke_entitlement(entitlement=entitlement, revoked_by=None, reason="support")
    services.revoke_purchase(
        provider_name="stripe", payment_intent_id="pi_rule_1", status="refunded", reason="later"
    )
    entitlement.refresh_from_db()
    assert entitlement.revoked_reason == "support"


def test_a_revocation_before_completion_schedules_one_recheck_after_commit(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.revoke_purchase(
            provider_name="stripe", payment_intent_id="pi_later", status="refunded", reason="r"
        )
    assert len(callbacks) == 1


def test_a_recheck_does_not_schedule_another(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.revoke_purchase(
            provider_name="stripe",
            payment_intent_id="pi_later",
            status="refunded",
            reason="r",
            schedule_retry=False,
        )
    assert callbacks == []


def test_a_recheck_applies_the_recorded_refund_to_a_purchase_completed_since(
    buyer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        apply(refunded(event_id="evt_early"))
    purchase = paid_purchase(buyer, pi="pi_rule_1")  # committed meanwhile
    for callback in callbacks:
        callback()
    purchase.refresh_from_db()
    assert purchase.status == "refunded"
    assert Entitlement.objects.get(purchase=purchase).revoked_reason == (
        "charge.refunded (evt_early)"
    )


def test_a_recheck_with_only_a_partial_refund_recorded_changes_nothing(buyer):
    apply(refunded(full=False))
    purchase = paid_purchase(buyer, pi="pi_rule_1")
    assert services.apply_revocations(provider_name="stripe", payment_intent_id="pi_rule_1") is None
    purchase.refresh_from_db()
    assert purchase.status == "paid"


def test_a_recheck_after_a_dispute_marks_the_purchase_disputed(buyer):
    apply(disputed(event_id="evt_d_early"))
    purchase = paid_purchase(buyer, pi="pi_rule_1")
    services.apply_revocations(provider_name="stripe", payment_intent_id="pi_rule_1")
    purchase.refresh_from_db()
    assert purchase.status == "disputed"


def test_a_completion_with_an_intent_schedules_a_recheck_and_one_without_does_not(
    pending, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as with_intent:
        apply(completed())
    Purchase.objects.create(
        user=pending.user,
        provider="stripe",
        checkout_session_id="cs_rule_2",
        currency="USD",
        amount=2500,
    )
    with django_capture_on_commit_callbacks(execute=False) as without_intent:
        apply(completed(session_id="cs_rule_2", pi=None, event_id="evt_c2"))
    # (the grant's own callback, forgetting the buyer's cached row, is not a recheck)
    rechecks = [
        [c for c in found if "revocations" in c.__qualname__]
        for found in (with_intent, without_intent)
    ]
    assert len(rechecks[0]) == 1 and rechecks[1] == []


# --- completing -------------------------------------------------------------------------


def test_a_paid_completion_grants_one_premium_entitlement_from_the_purchase(pending, buyer):
    assert apply(completed()) == "processed"
    pending.refresh_from_db()
    assert pending.status == "paid" and pending.paid_at is not None
    assert pending.payment_intent_id == "pi_rule_1"
    entitlement = Entitlement.objects.get(purchase=pending)
    assert entitlement.user == buyer and entitlement.plan == "premium"
    assert entitlement.source == Entitlement.Source.PURCHASE
    assert entitlement.reason == "Stripe checkout cs_rule_1"


def test_an_expanded_payment_intent_object_is_read_by_its_id(pending):
    apply(completed(pi={"id": "pi_expanded", "object": "payment_intent"}))
    pending.refresh_from_db()
    assert pending.payment_intent_id == "pi_expanded"


def test_a_completion_in_another_currency_does_not_grant(pending, buyer):
    apply(completed(currency="inr"))
    pending.refresh_from_db()
    assert pending.status == "pending" and tier_of(buyer) == policy.Tier.FREE


def test_an_unpaid_completion_leaves_the_purchase_pending(pending, buyer):
    apply(completed(payment_status="unpaid"))
    pending.refresh_from_db()
    assert pending.status == "pending" and pending.paid_at is None


def test_an_expired_purchase_is_never_completed(pending, buyer):
    pending.status = Purchase.Status.EXPIRED
    pending.save()
    assert services.fulfil_checkout(provider_name="stripe", session=completed()["data"]["object"])
    pending.refresh_from_db()
    assert pending.status == "expired" and tier_of(buyer) == policy.Tier.FREE


def test_a_lost_purchase_is_rebuilt_from_the_metadata_user_id(buyer):
    apply(completed(session_id="cs_lost", metadata={"user_id": str(buyer.pk), "plan": "premium"}))
    purchase = Purchase.objects.get(checkout_session_id="cs_lost")
    assert (purchase.user, purchase.currency, purchase.amount, purchase.plan) == (
        buyer,
        "USD",
        2500,
        "premium",
    )
    assert purchase.status == "paid" and tier_of(buyer) == policy.Tier.PREMIUM


@pytest.mark.parametrize(
    "ref",
    ["", "12a", "²", "1" * 19, True, 1.0, None],
    ids=["blank", "not-a-number", "unicode-digit", "too-long", "bool", "float", "none"],
)
def test_a_lost_purchase_with_no_readable_user_reference_grants_nothing(buyer, ref):
    session = completed(session_id="cs_lost", metadata={"plan": "premium"})["data"]["object"]
    session["client_reference_id"] = ref
    purchase = services.fulfil_checkout(provider_name="stripe", session=session)
    assert (purchase.status, purchase.user, purchase.note) == (
        "refused",
        None,
        "has no user we know",
    )
    assert not Entitlement.objects.exists()


def test_a_lost_purchase_accepts_a_numeric_user_reference(buyer):
    session = completed(session_id="cs_lost", metadata={"plan": "premium"})["data"]["object"]
    session["client_reference_id"] = buyer.pk
    assert services.fulfil_checkout(provider_name="stripe", session=session).user == buyer


@pytest.mark.parametrize(
    "fields",
    [{"amount_total": -1}, {"amount_total": True}, {"amount_total": "2500"}, {"currency": "usdx"}],
    ids=["negative", "bool", "string", "four-letters"],
)
def test_a_lost_purchase_without_a_usable_amount_or_currency_is_not_rebuilt(buyer, fields):
    session = completed(
        session_id="cs_lost",
        client_reference_id=str(buyer.pk),
        metadata={"plan": "premium"},
        **fields,
    )
    purchase = services.fulfil_checkout(provider_name="stripe", session=session["data"]["object"])
    assert purchase.status == "refused"
    assert not Entitlement.objects.exists()


def test_a_lost_purchase_of_zero_is_refused(buyer):
    """Zero is a readable amount, but not the price: a session we never created is granted
    only at the site's own price (a 100% coupon on our own checkout has its row already)."""
    session = completed(
        session_id="cs_lost",
        client_reference_id=str(buyer.pk),
        amount_total=0,
        metadata={"plan": "premium"},
    )
    purchase = services.fulfil_checkout(provider_name="stripe", session=session["data"]["object"])
    assert (purchase.status, purchase.amount) == ("refused", 0)
    assert tier_of(buyer) == policy.Tier.FREE


def test_an_expiry_marks_only_pending_purchases_of_that_provider(buyer):
    pending_stripe = Purchase.objects.create(
        user=buyer, provider="stripe", checkout_session_id="cs_exp", currency="USD", amount=1
    )
    paid = paid_purchase(buyer, pi="pi_x", session="cs_exp_paid")
    for session_id, event_id in (("cs_exp", "evt_e1"), ("cs_exp_paid", "evt_e2")):
        expired = {"id": event_id, "type": "checkout.session.expired", "data": {"object": {}}}
        expired["data"]["object"]["id"] = session_id
        assert apply(expired) == "processed"
    assert (
        apply(
            {
                "id": "evt_e3",
                "type": "checkout.session.expired",
                "data": {"object": {"id": "cs_exp"}},
            },
            provider="local",
        )
        == "processed"
    )
    pending_stripe.refresh_from_db()
    paid.refresh_from_db()
    assert pending_stripe.status == "expired" and paid.status == "paid"


def test_a_completion_or_refund_without_an_object_is_ignored(pending):
    assert apply({"id": "evt_n1", "type": "checkout.session.completed", "data": None}) == "ignored"
    assert apply({"id": "evt_n2", "type": "charge.refunded", "data": {"object": "x"}}) == "ignored"
    pending.refresh_from_db()
    assert pending.status == "pending"


def test_an_unrelated_event_is_recorded_and_ignored(db):
    assert apply({"id": "evt_u", "type": "customer.created", "data": {"object": {}}}) == "ignored"
    assert WebhookEvent.objects.filter(event_id="evt_u", type="customer.created").exists()


def test_a_duplicate_event_is_reported_as_such(pending):
    assert apply(completed()) == "processed"
    assert apply(completed()) == "duplicate"


# --- what an event leaves on record -------------------------------------------------------


def test_the_recorded_event_keeps_only_storable_scalars_of_its_object(db):
    event = completed(
        customer_details={"email": "a@example.com"},
        status="complete",
        reason="x" * 1000,
        charge="ch\x00nul",
        amount_refunded=float("nan"),
        refunded=None,
    )
    event["created"] = 1_700_000_000
    apply(event)
    recorded = WebhookEvent.objects.get(event_id="evt_c1")
    assert recorded.payment_intent_id == "pi_rule_1"
    assert recorded.payload == {
        "id": "evt_c1",
        "type": "checkout.session.completed",
        "created": 1_700_000_000,
        "data": {
            "object": {
                "id": "cs_rule_1",
                "object": "checkout.session",
                "payment_status": "paid",
                "payment_intent": "pi_rule_1",
                "amount_total": 2500,
                "currency": "usd",
                "status": "complete",
                "reason": "x" * 1000,
                "refunded": None,
            }
        },
    }


def test_an_over_long_text_or_a_non_integer_creation_time_is_not_recorded(db):
    event = completed(status="y" * 1001)
    event["created"] = "yesterday"
    apply(event)
    payload = WebhookEvent.objects.get(event_id="evt_c1").payload
    assert "status" not in payload["data"]["object"] and payload["created"] is None


def test_a_finite_float_is_recorded(db):
    apply(completed(amount_refunded=1.5))
    payload = WebhookEvent.objects.get(event_id="evt_c1").payload
    assert payload["data"]["object"]["amount_refunded"] == 1.5


# --- staff grants and revocations ---------------------------------------------------------


def test_a_staff_grant_needs_a_reason(buyer):
    with pytest.raises(ValueError, match="reason is required to grant"):
        services.grant_premium(user=buyer, granted_by=None, reason="   ")
    assert not Entitlement.objects.exists()


def test_a_staff_grant_records_who_why_and_takes_effect_on_the_same_user_object(buyer):
    staff = UserFactory(is_staff=True)
    assert policy.viewer_tier(buyer) == policy.Tier.FREE  # memoised on the object
    entitlement = services.grant_premium(user=buyer, granted_by=staff, reason="press")
    assert (entitlement.plan, entitlement.source) == ("premium", Entitlement.Source.STAFF)
    assert (entitlement.granted_by, entitlement.reason) == (staff, "press")
    assert policy.viewer_tier(buyer) == policy.Tier.PREMIUM


def test_a_staff_revocation_needs_a_reason(buyer):
    entitlement = services.grant_premium(user=buyer, granted_by=None, reason="gift")
    with pytest.raises(ValueError, match="reason is required to revoke"):
        services.revoke_entitlement(entitlement=entitlement, revoked_by=None, reason=" ")
    entitlement.refresh_from_db()
    assert entitlement.revoked_at is None


def test_a_staff_revocation_records_who_and_why_once(buyer):
    staff = UserFactory(is_staff=True)
    entitlement = services.grant_premium(user=buyer, granted_by=None, reason="gift")
    assert policy.viewer_tier(buyer) == policy.Tier.PREMIUM
    assert services.revoke_entitlement(entitlement=entitlement, revoked_by=staff, reason="abuse")
    assert entitlement.revoked_at is not None
    assert (entitlement.revoked_by, entitlement.revoked_reason) == (staff, "abuse")
    assert policy.viewer_tier(entitlement.user) == policy.Tier.FREE
    assert not services.revoke_entitlement(entitlement=entitlement, revoked_by=None, reason="x")
    entitlement.refresh_from_db()
    assert entitlement.revoked_reason == "abuse"


def test_revoking_the_entitlement_of_a_deleted_account_still_works(buyer):
    entitlement = services.grant_premium(user=buyer, granted_by=None, reason="gift")
    buyer.delete()
    entitlement.refresh_from_db()
    assert services.revoke_entitlement(entitlement=entitlement, revoked_by=None, reason="gone")


# --- starting a checkout ------------------------------------------------------------------


def test_starting_a_checkout_records_a_pending_purchase_keyed_by_the_session(buyer):
    from inferview.access.pricing import Price

    class Provider:
        name = "stripe"

        def create_session(self, *, user, price, success_url, cancel_url):
            self.seen = (user, price, success_url, cancel_url)

            class Session:
                id = "cs_started"
                url = "https://pay.example/cs_started"

            return Session()

    provider = Provider()
    price = Price(currency="INR", amount=200000)
    purchase, url = services.start_checkout(
        user=buyer, price=price, provider=provider, success_url="/ok", cancel_url="/no"
    )
    assert url == "https://pay.example/cs_started"
    assert provider.seen == (buyer, price, "/ok", "/no")
    purchase.refresh_from_db()
    assert (purchase.user, purchase.provider, purchase.checkout_session_id) == (
        buyer,
        "stripe",
        "cs_started",
    )
    assert (purchase.currency, purchase.amount, purchase.plan, purchase.status) == (
        "INR",
        200000,
        "premium",
        "pending",
    )


# --- account deletion -----------------------------------------------------------------------


def test_revoking_everything_of_an_account_needs_a_reason(buyer):
    services.grant_premium(user=buyer, granted_by=None, reason="gift")
    with pytest.raises(ValueError, match="reason is required to revoke"):
        services.revoke_all_for_user(user=buyer, reason="  ")
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_revoking_everything_of_an_account_keeps_the_rows_and_earlier_reasons(buyer):
    first = services.grant_premium(user=buyer, granted_by=None, reason="gift")
    services.revoke_entitlement(entitlement=first, revoked_by=None, reason="earlier")
    services.grant_premium(user=buyer, granted_by=None, reason="again")
    paid_purchase(buyer, pi="pi_rule_1")
    other = UserFactory()
    services.grant_premium(user=other, granted_by=None, reason="someone else")
    assert policy.viewer_tier(buyer) == policy.Tier.PREMIUM  # memoised on the object
    assert services.revoke_all_for_user(user=buyer, reason="account deleted") == 2
    assert policy.viewer_tier(buyer) == policy.Tier.FREE
    reasons = sorted(
        Entitlement.objects.filter(user=buyer).values_list("revoked_reason", flat=True)
    )
    assert reasons == ["account deleted", "account deleted", "earlier"]
    assert tier_of(other) == policy.Tier.PREMIUM
