"""A hypothesis state machine over one purchase's webhook events: completion (either
completion event), replays of any delivered event, full and partial refunds, disputes,
in any order and duplicated. After every step the purchase has exactly one active
entitlement when the events say it was paid and never refunded in full or disputed, and
none otherwise; never more than one entitlement row."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from inferview.access import services
from inferview.access.models import Entitlement, Purchase, WebhookEvent
from tests.access.test_webhooks import completed, disputed, refunded
from tests.factories import UserFactory

STEPS = 0


class PurchaseEvents(RuleBasedStateMachine):
    capture = None  # django_capture_on_commit_callbacks, set by the test

    def __init__(self) -> None:
        super().__init__()
        WebhookEvent.objects.all().delete()
        Entitlement.objects.filter(source="purchase").delete()
        Purchase.objects.all().delete()
        self.user = UserFactory()
        self.purchase = Purchase.objects.create(
            user=self.user,
            provider="stripe",
            checkout_session_id="cs_sm_1",
            currency="USD",
            amount=2500,
        )
        self.delivered: list[dict] = []
        self.paid = False
        self.revoked = False
        self.serial = 0

    def _deliver(self, event: dict) -> None:
        global STEPS
        with self.capture(execute=True):
            services.process_event(provider_name="stripe", event=event)
        STEPS += 1

    def _new(self, event: dict) -> dict:
        self.serial += 1
        event = {**event, "id": f"evt_sm_{self.serial}"}
        self.delivered.append(event)
        return event

    @rule(kind=st.sampled_from(sorted(services.COMPLETION_EVENTS)))
    def complete(self, kind):
        self._deliver(self._new(completed("cs_sm_1", "pi_sm_1", kind=kind)))
        self.paid = True

    @rule()
    def complete_unpaid(self):
        # A bank transfer still clearing: no grant until a paid completion.
        self._deliver(self._new(completed("cs_sm_1", "pi_sm_1", payment_status="unpaid")))

    @rule()
    def refund_in_full(self):
        self._deliver(self._new(refunded("pi_sm_1", full=True)))
        self.revoked = True

    @rule()
    def refund_in_part(self):
        self._deliver(self._new(refunded("pi_sm_1", full=False)))

    @rule()
    def dispute(self):
        self._deliver(self._new(disputed("pi_sm_1")))
        self.revoked = True

    @rule(data=st.data())
    def replay(self, data):
        if self.delivered:
            self._deliver(data.draw(st.sampled_from(self.delivered)))

    @invariant()
    def one_entitlement_or_none_as_the_events_say(self):
        rows = Entitlement.objects.filter(purchase__checkout_session_id="cs_sm_1")
        active = rows.filter(revoked_at__isnull=True).count()
        assert rows.count() <= 1
        assert active == (1 if self.paid and not self.revoked else 0), (
            [e["type"] for e in self.delivered],
            active,
        )


@pytest.mark.django_db
def test_purchase_events_in_any_order(django_capture_on_commit_callbacks):
    PurchaseEvents.capture = staticmethod(django_capture_on_commit_callbacks)
    run = PurchaseEvents.TestCase
    run.settings = settings(
        max_examples=60,
        stateful_step_count=10,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    run().runTest()
    print(f"\npurchase state machine: {STEPS} deliveries")
    assert STEPS >= 200
