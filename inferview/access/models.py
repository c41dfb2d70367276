"""Plans, purchases and entitlements.

Invariants the database holds (not ``save()``), so concurrent webhook deliveries cannot
break them:

* a purchase is unique on its provider's checkout session id;
* a webhook event is recorded once per provider event id (the dedup key);
* a purchase grants at most one entitlement (``Entitlement.purchase`` is one-to-one).

An entitlement is revoked, never deleted: a refund or dispute sets ``revoked_at``.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from .readers import EntitlementQuerySet


class Purchase(models.Model):
    """One checkout of the one-time premium plan, keyed by the provider's ids."""

    class Provider(models.TextChoices):
        STRIPE = "stripe", "Stripe"
        LOCAL = "local", "Local (development only)"

    class Status(models.TextChoices):
        PENDING = "pending", "Awaiting payment"
        PAID = "paid", "Paid"
        REFUNDED = "refunded", "Refunded"
        DISPUTED = "disputed", "Disputed"
        EXPIRED = "expired", "Expired"
        # A paid checkout the site never started that is not the site's own product at the
        # site's price (another product on the same Stripe account, a Payment Link): kept
        # for a human to look at, never granted.
        REFUSED = "refused", "Refused (not our checkout)"

    # SET_NULL, not CASCADE: deleting an account removes the person, but the provider's
    # ids stay so a later refund or dispute for this payment can still be matched.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="purchases",
    )
    provider = models.CharField(max_length=16, choices=Provider.choices)
    checkout_session_id = models.CharField(max_length=255, unique=True)
    payment_intent_id = models.CharField(max_length=255, blank=True, db_index=True)
    plan = models.CharField(max_length=32, default="premium")
    currency = models.CharField(max_length=3)
    amount = models.PositiveIntegerField(help_text="In the currency's minor unit (cents, paise).")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(
        max_length=255, blank=True, help_text="Why the fulfilment refused it, for a human."
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.plan} {self.amount_display} ({self.get_status_display()})"

    @property
    def amount_display(self) -> str:
        from inferview.access.pricing import format_amount

        return format_amount(self.currency, self.amount)


class WebhookEvent(models.Model):
    """Every provider event we accepted, once. The unique event id is the dedup key:
    a duplicate or replayed delivery fails the insert and is acknowledged without effect."""

    provider = models.CharField(max_length=16, choices=Purchase.Provider.choices)
    event_id = models.CharField(max_length=255)
    type = models.CharField(max_length=100)
    # The payment intent the event is about, so a refund that arrives before the
    # checkout completion can still be applied when the completion arrives.
    payment_intent_id = models.CharField(max_length=255, blank=True, db_index=True)
    received_at = models.DateTimeField(auto_now_add=True)
    payload = models.JSONField(default=dict)

    class Meta:
        ordering = ["-received_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "event_id"], name="webhook_event_once")
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.type} {self.event_id}"


class Entitlement(models.Model):
    class Source(models.TextChoices):
        PURCHASE = "purchase", "Purchase"
        STAFF = "staff", "Granted by staff"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="entitlements",
    )
    plan = models.CharField(max_length=32, default="premium")
    source = models.CharField(max_length=16, choices=Source.choices)
    purchase = models.OneToOneField(
        Purchase, null=True, blank=True, on_delete=models.PROTECT, related_name="entitlement"
    )
    reason = models.TextField(blank=True)
    granted_at = models.DateTimeField(auto_now_add=True)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.TextField(blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    objects = EntitlementQuerySet.as_manager()

    class Meta:
        ordering = ["-granted_at", "-id"]
        indexes = [
            models.Index(
                fields=["user", "plan"],
                condition=Q(revoked_at__isnull=True),
                name="entitlement_active",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(source="staff") | Q(purchase__isnull=False),
                name="entitlement_purchase_has_purchase",
            )
        ]

    def __str__(self) -> str:
        state = "revoked" if self.revoked_at else "active"
        return f"{self.plan} for {self.user} ({state})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
