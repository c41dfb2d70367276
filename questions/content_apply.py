"""Writing one imported item: the import's options and report, and the rule that an item
edited in admin since its last sync is kept (a conflict in the report) unless the files
are forced to win. Only a real change is written, through ``services.save_content``."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from . import services
from .content_format import ContentError
from .models import (
    Concept,
)


@dataclass(frozen=True)
class ImportOptions:
    force: bool = False  # files win over edits made in admin since the last sync
    only_new: bool = False  # create missing items only; leave existing ones alone


@dataclass
class ImportReport:
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0
    conflicts: list[str] = field(default_factory=list)

    def add(self, kind: str, created: bool, changed: bool) -> None:
        if created:
            self.created[kind] = self.created.get(kind, 0) + 1
        elif changed:
            self.updated[kind] = self.updated.get(kind, 0) + 1
        else:
            self.unchanged += 1

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)

    def __str__(self) -> str:
        def fmt(d):
            return ", ".join(f"{v} {k}" for k, v in sorted(d.items())) or "none"

        text = f"created: {fmt(self.created)}; updated: {fmt(self.updated)}; unchanged: {self.unchanged}"
        if self.conflicts:
            text += f"; kept {len(self.conflicts)} admin edit(s): " + "; ".join(self.conflicts)
        return text


def _apply(obj: Any, values: dict[str, Any]) -> bool:
    changed = False
    for name, value in values.items():
        if getattr(obj, name) != value:
            setattr(obj, name, value)
            changed = True
    return changed


def _check_lengths(obj: Any, values: dict[str, Any], where: str) -> None:
    """Text longer than its column is a named error here; otherwise SQLite keeps it whole
    and PostgreSQL fails the whole import with a bare database error."""
    for name, value in values.items():
        limit = getattr(obj._meta.get_field(name), "max_length", None)
        if limit and isinstance(value, str) and len(value) > limit:
            raise ContentError(f"{where}: {name}: {len(value)} characters, at most {limit} fit")


def edited_in_admin(obj: Any) -> bool:
    """Changed since the last import or export (the database holds text the files lack)."""
    return bool(obj.pk and obj.synced_hash and obj.content_hash != obj.synced_hash)


class Skip(Exception):
    """An existing item the import leaves alone (``only_new``, or a kept admin edit)."""


def _save(
    obj: Any,
    values: dict[str, Any],
    updated_at: dt.datetime | None,
    where: str,
    *,
    options: ImportOptions,
    report: ImportReport,
) -> tuple[bool, bool]:
    """Write ``values`` to ``obj``; raises ``Skip`` when the item must not be touched."""
    _check_lengths(obj, values, where)
    created = obj.pk is None
    if not created and options.only_new:
        raise Skip
    # A file without dates keeps the database's (or, new, takes its publication date), so
    # importing the same files twice never moves a date.
    if values.get("published_at") is None:
        values.pop("published_at", None)
    if updated_at is None and created:
        updated_at = values.get("published_at")
    differs = [name for name, value in values.items() if getattr(obj, name) != value]
    if differs and edited_in_admin(obj) and not options.force:
        report.conflicts.append(f"{where} ({', '.join(differs[:3])})")
        raise Skip
    changed = _apply(obj, values)
    if created or changed:
        services.save_content(obj, updated_at=updated_at, synced=True)
    elif updated_at is not None and obj.updated_at != updated_at:
        obj.updated_at = updated_at
        obj.save(update_fields=["updated_at"])
        changed = True
    return created, changed


def _set_m2m(manager, objs: list) -> bool:
    wanted = {o.pk for o in objs}
    current = set(manager.values_list("pk", flat=True))
    if wanted != current:
        manager.set(objs)
        return True
    return False


def _concepts(slugs: list[str], where: str, by_slug: dict[str, Concept]) -> list[Concept]:
    missing = [s for s in slugs if s not in by_slug]
    if missing:
        raise ContentError(f"{where}: concepts: unknown concept slug(s) {', '.join(missing)}")
    return [by_slug[s] for s in slugs]
