"""Runs are records of computations, so the admin shows them read-only: editing a stored
result would make it disagree with its inputs hash."""

from django.contrib import admin

from calculators.models import CalculationRun


@admin.register(CalculationRun)
class CalculationRunAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "calculator",
        "status",
        "attempts",
        "created_at",
        "finished_at",
        "requested_by",
    ]
    list_filter = ["status", "calculator"]
    search_fields = ["id", "inputs_hash"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in CalculationRun._meta.fields]
    list_select_related = ["requested_by"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
