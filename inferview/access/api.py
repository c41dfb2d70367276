"""Access API: the viewer's own access (tier, N, prices) and their receipts.

Purchases are looked up inside the owner's queryset, so another user's id is a 404.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from . import policy, pricing, selectors
from .models import Purchase


class PurchaseSerializer(serializers.ModelSerializer):
    amount_display = serializers.CharField(read_only=True)
    entitlement_active = serializers.SerializerMethodField()

    class Meta:
        model = Purchase
        fields = [
            "id",
            "plan",
            "provider",
            "status",
            "currency",
            "amount",
            "amount_display",
            "created_at",
            "paid_at",
            "revoked_at",
            "entitlement_active",
        ]

    def get_entitlement_active(self, obj: Purchase) -> bool:
        entitlement = getattr(obj, "entitlement", None)
        return bool(entitlement and entitlement.is_active)


class PurchaseViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = PurchaseSerializer
    permission_classes = [permissions.IsAuthenticated]

    def get_queryset(self):
        return selectors.purchases_of(user=self.request.user).select_related("entitlement")


class PriceSerializer(serializers.Serializer):
    currency = serializers.CharField()
    amount = serializers.IntegerField(help_text="Minor units (cents, paise).")
    display = serializers.CharField()


class AccessSerializer(serializers.Serializer):
    tier = serializers.ChoiceField(choices=["anonymous", "free", "premium"])
    remaining_answers = serializers.IntegerField()
    currency = serializers.CharField()
    prices = PriceSerializer(many=True)


class AccessView(APIView):
    """The viewer's tier, how many answers they cannot read yet, and premium's prices."""

    @extend_schema(responses=AccessSerializer)
    def get(self, request: Request) -> Response:
        data = {
            "tier": policy.viewer_tier(request.user).name.lower(),
            "remaining_answers": selectors.remaining_answers(user=request.user),
            "currency": pricing.viewer_currency(request),
            "prices": [
                {"currency": p.currency, "amount": p.amount, "display": p.display}
                for p in pricing.all_prices()
            ],
        }
        return Response(AccessSerializer(data).data)
