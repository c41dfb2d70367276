"""Revisions in admin: history with revert (django-reversion) plus a diff of any revision
against the current text, so an author sees what a revert would change before doing it."""

from __future__ import annotations

import datetime as dt
import difflib
import json
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.encoding import force_str
from django.utils.formats import localize
from django.utils.timezone import localtime
from reversion import create_revision, set_comment
from reversion.admin import VersionAdmin
from reversion.errors import RevertError
from reversion.models import Version
from reversion.revisions import _get_options

from .models import Question

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
        a, b = _lines(before), _lines(after)
        lines = list(difflib.unified_diff(a, b, "revision", "now", lineterm="", n=2))
        diffs.append({"field": name, "lines": lines[2:] or [f"- {before}", f"+ {after}"]})
    return diffs


def _lines(value: Any) -> list[str]:
    """A value as diff lines: text by its lines, a list (key points, references) one item
    per line, so moving or editing one point shows as that point, not the whole list."""
    if isinstance(value, list):
        return [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in value]
    return str(value if value is not None else "").splitlines()


def versions_of_item(version: Version) -> list[Version]:
    """The versions a revert of ``version`` restores: the item's own and, in the same
    revision, those of what it follows (a question's calculators, a guide's sections and
    their items). Never the other items that share the revision: an import or a reorder
    records a whole track in one revision, and reverting one question must not revert
    (and renumber) the rest."""
    found = [version]
    others = list(version.revision.version_set.exclude(pk=version.pk))
    queue = [version]
    while queue:
        parent = queue.pop()
        for name in _get_options(parent._model).follow:
            rel = parent._model._meta.get_field(name)
            child_model, fk = rel.related_model, rel.field.attname
            for v in others:
                if (
                    v._model is child_model
                    and str(v.field_dict.get(fk)) == str(parent.object_id)
                    and v not in found
                ):
                    found.append(v)
                    queue.append(v)
    return found


def revert_item(version: Version) -> str:
    """Restore one item to ``version``; returns a note for the author ("" when none).

    A question's number is its place in the track: when another question now holds the
    number the revision had, the question keeps its current number (and the note says
    so) rather than moving the other one."""
    note = ""
    for v in versions_of_item(version):
        obj = v._object_version.object
        if isinstance(obj, Question):
            current = Question.objects.filter(pk=obj.pk).values_list("number", flat=True).first()
            holder = (
                Question.objects.filter(track_id=obj.track_id, number=obj.number)
                .exclude(pk=obj.pk)
                .first()
            )
            if holder is not None and current is not None:
                note = (
                    f"Number {obj.number} is now question “{holder.title}”, so this question "
                    f"keeps its number {current}; use Reorder on the track to move it."
                )
                obj.number = current
        v._object_version.save()
    return note


class RevisionsAdmin(VersionAdmin):
    object_history_template = "admin/questions/object_history.html"

    def _reversion_revisionform_view(self, request, version, template_name, extra_context=None):
        """django-reversion's revert view, reverting only this item (``revert_item``)
        instead of every object in the revision. A GET shows the reverted form and rolls
        back; a POST that saves keeps it."""

        class _RollBack(Exception):
            def __init__(self, response):
                self.response = response

        try:
            with transaction.atomic(using=version.db):
                note = revert_item(version)
                with create_revision():
                    response = self.changeform_view(
                        request, str(version.object_id), request.path, extra_context
                    )
                    if request.method == "POST" and response.status_code == 302:
                        set_comment(
                            "Reverted to previous version, saved on "
                            f"{localize(localtime(version.revision.date_created))}"
                        )
                        if note:
                            messages.warning(request, note)
                    elif response.status_code == 200:
                        if note:
                            messages.warning(request, note)
                        response.template_name = template_name
                        response.render()
                        raise _RollBack(response)
        except _RollBack as ex:
            return ex.response
        except (RevertError, ProtectedError, IntegrityError) as ex:
            messages.error(request, f"Could not revert: {force_str(ex)}")
            opts = self.model._meta
            return redirect(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        return response

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
