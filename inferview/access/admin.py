"""Staff grant and revoke premium here, always with a reason. Nothing is deleted:
purchases and webhook events are records, and an entitlement is revoked, not removed."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.template.response import TemplateResponse

# admin_preview and admin_preview_lessons register the question and lesson previews
from . import admin_preview, admin_preview_lessons, services  # noqa: F401
from .models import Entitlement, Purchase, WebhookEvent


class GrantPremiumForm(forms.ModelForm):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Why this person gets premium without paying (kept on the record).",
    )

    class Meta:
        model = Entitlement
        fields = ["user", "reason"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["user"].required = True
        self.fields["user"].queryset = get_user_model().objects.order_by("email")


class RevokeForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), help_text="Kept on the record."
    )


@admin.register(Entitlement)
class EntitlementAdmin(admin.ModelAdmin):
    list_display = ["user", "plan", "source", "granted_at", "granted_by", "state", "reason"]
    list_filter = ["source", "plan", ("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__email", "reason", "revoked_reason"]
    raw_id_fields = ["user"]
    actions = ["revoke_selected"]
    readonly_fields = [
        "user",
        "plan",
        "source",
        "purchase",
        "reason",
        "granted_at",
        "granted_by",
        "revoked_at",
        "revoked_by",
        "revoked_reason",
    ]

    @admin.display(description="State")
    def state(self, obj: Entitlement) -> str:
        return "active" if obj.is_active else f"revoked {obj.revoked_at:%Y-%m-%d}"

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = GrantPremiumForm
        return super().get_form(request, obj, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else []

    def get_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else ["user", "reason"]

    def save_model(self, request: HttpRequest, obj: Entitlement, form, change: bool) -> None:
        if change:
            return  # entitlements are changed only by granting or revoking
        granted = services.grant_premium(
            user=form.cleaned_data["user"],
            granted_by=request.user,
            reason=form.cleaned_data["reason"],
        )
        obj.pk = granted.pk
        obj.refresh_from_db()

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.action(description="Revoke selected premium (asks for a reason)")
    def revoke_selected(self, request: HttpRequest, queryset):
        if "apply" in request.POST:
            form = RevokeForm(request.POST)
            if form.is_valid():
                count = sum(
                    services.revoke_entitlement(
                        entitlement=e, revoked_by=request.user, reason=form.cleaned_data["reason"]
                    )
                    for e in queryset
                )
                self.message_user(request, f"Revoked {count} entitlement(s).", messages.SUCCESS)
                return None
        else:
            form = RevokeForm()
        return TemplateResponse(
            request,
            "access/admin_revoke.html",
            {
                **self.admin_site.each_context(request),
                "title": "Revoke premium",
                "form": form,
                "entitlements": queryset,
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
                "opts": self.model._meta,
            },
        )


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Purchase)
class PurchaseAdmin(ReadOnlyAdmin):
    list_display = [
        "checkout_session_id",
        "user",
        "provider",
        "status",
        "amount_display",
        "created_at",
        "paid_at",
        "note",
    ]
    list_filter = ["status", "provider", "currency"]
    search_fields = ["checkout_session_id", "payment_intent_id", "user__email"]


@admin.register(WebhookEvent)
class WebhookEventAdmin(ReadOnlyAdmin):
    list_display = ["event_id", "provider", "type", "payment_intent_id", "received_at"]
    list_filter = ["provider", "type"]
    search_fields = ["event_id", "payment_intent_id"]
