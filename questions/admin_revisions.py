"""Revisions in admin: history with revert (django-reversion) plus a diff of any revision
against the current text, so an author sees what a revert would change before doing it."""

from __future__ import annotations

import datetime as dt
import difflib
from typing import Any

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, render
from django.urls import path
from reversion.admin import VersionAdmin
from reversion.models import Version

# Bookkeeping, not content: showing them would bury the real change.
IGNORED = {"content_hash", "synced_hash", "updated_at", "created_at"}


def field_diffs(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """Per changed field: its name and a unified diff (lines) from ``old`` to ``new``."""
    diffs = []
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after or name in IGNORED:
            continue
        if isinstance(before, dt.datetime) and isinstance(after, dt.datetime):
            if abs(before - after) < dt.timedelta(seconds=1):  # stored to the millisecond
                continue
        a = str(before if before is not None else "").splitlines()
        b = str(after if after is not None else "").splitlines()
        lines = list(difflib.unified_diff(a, b, "revision", "now", lineterm="", n=2))
        diffs.append({"field": name, "lines": lines[2:] or [f"- {before}", f"+ {after}"]})
    return diffs


class RevisionsAdmin(VersionAdmin):
    object_history_template = "admin/questions/object_history.html"

    def get_urls(self):
        info = self.model._meta.app_label, self.model._meta.model_name
        urls = [
            path(
                "<path:object_id>/history/<int:version_id>/diff/",
                self.admin_site.admin_view(self.revision_diff_view),
                name="{}_{}_revision_diff".format(*info),
            )
        ]
        return urls + super().get_urls()

    def revision_diff_view(self, request, object_id: str, version_id: int):
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        obj = get_object_or_404(self.model, pk=object_id)
        version = get_object_or_404(Version, pk=version_id, object_id=str(obj.pk))
        current = {f.attname: getattr(obj, f.attname) for f in self.model._meta.concrete_fields}
        for m2m in self.model._meta.many_to_many:
            current[m2m.name] = sorted(
                obj.serializable_value(m2m.name).values_list("pk", flat=True)
            )
        old = dict(version.field_dict)
        for m2m in self.model._meta.many_to_many:
            old[m2m.name] = sorted(old.get(m2m.name) or [])
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": obj,
            "version": version,
            "diffs": field_diffs(old, current),
            "title": f"Changes since {version.revision.date_created:%d %b %Y %H:%M}",
            "revert_url": "../",
        }
        return render(request, "admin/questions/revision_diff.html", context)
