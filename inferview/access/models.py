"""Plans, purchases and entitlements. An entitlement is revoked, never deleted."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Entitlement(models.Model):
    class Source(models.TextChoices):
        PURCHASE = "purchase", "Purchase"
        STAFF = "staff", "Granted by staff"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="entitlements"
    )
    plan = models.CharField(max_length=32, default="premium")
    source = models.CharField(max_length=16, choices=Source.choices)
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

    class Meta:
        indexes = [models.Index(fields=["user", "plan"], condition=Q(revoked_at__isnull=True), name="entitlement_active")]

    def __str__(self) -> str:
        state = "revoked" if self.revoked_at else "active"
        return f"{self.plan} for {self.user} ({state})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
