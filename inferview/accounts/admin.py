from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.urls import reverse
from django.utils.html import format_html

from inferview.access import policy
from inferview.access.models import Entitlement

from .models import User


class EntitlementInline(admin.TabularInline):
    """Read-only here: grant and revoke from Access › Entitlements, where a reason is required."""

    model = Entitlement
    fk_name = "user"
    extra = 0
    can_delete = False
    fields = [
        "plan",
        "source",
        "reason",
        "granted_at",
        "granted_by",
        "revoked_at",
        "revoked_reason",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ["email", "username", "tier", "is_staff", "date_joined"]
    search_fields = ["email", "username"]
    inlines = [EntitlementInline]
    fieldsets = DjangoUserAdmin.fieldsets + (
        ("Preferences", {"fields": ["preferred_currency", "email_replies"]}),
    )

    @admin.display(description="Tier")
    def tier(self, obj: User) -> str:
        name = policy.viewer_tier(obj).name.lower()
        if name == "free":
            url = reverse("admin:access_entitlement_add") + f"?user={obj.pk}"
            return format_html('free (<a href="{}">grant premium</a>)', url)
        return name


# The admin's own sign-in form checks a password and nothing else. Sending it to allauth's
# sign-in instead means staff pass the second-factor step there like everyone else.
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]
