"""A reader's data export: everything the site holds about them, as one JSON document.

The export is a registry of sections, the way account deletion asks each app to let go:
each section names the rows it reads (``covers``, as ``app_label.Model.field`` of a
relation to the user) and returns plain JSON values for one reader. The accounts app sits
above access, community and calculators, so it may read their models; nothing below
imports this module. ``tests/accounts/test_export.py`` walks every relation to the user
model in the project and fails if one is neither covered by a section nor listed in
``NOT_THE_READERS`` with the reason, so a new kind of row cannot be left out silently.

What is never in it: other readers' rows or names (a correction's other reporters' notes,
a moderator who hid a comment, a staff member who granted a plan), secrets (password
hash, TOTP secret, recovery codes, session keys) and locked answer text (nothing here
carries content beyond the titles of the items the reader's rows point at, and the quote
a reader reported, which is their own words).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from allauth.usersessions.models import UserSession
from django.contrib.admin.models import LogEntry
from django.urls import reverse
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder
from reversion.models import Revision

from calculators.models import CalculationRun
from inferview.access import selectors as access_selectors
from inferview.access.models import Entitlement, Purchase
from inferview.community.corrections.selectors import reports_for
from inferview.community.models import (
    Attempt,
    Bookmark,
    Comment,
    CommentReport,
    CramItem,
    CramPlan,
    DifficultyVote,
    Draw,
    KeyPointScore,
    MockItem,
    MockSession,
    NumericAnswer,
    Progress,
    ReviewCard,
)
from questions.models import LessonProgress

FORMAT_VERSION = 1

#: Relations to the user that are someone else's act on a row, not the reader's own data.
NOT_THE_READERS = {
    "community.Comment.hidden_by": "a moderator hiding another reader's comment",
    "community.Correction.decided_by": "an author deciding a report (the reporter's side "
    "is community.CorrectionReporter.user)",
    "community.Correction.reporters": "the reporters, through CorrectionReporter",
    "access.Entitlement.granted_by": "the staff member who granted someone a plan",
    "access.Entitlement.revoked_by": "the staff member who revoked someone's plan",
}

Row = dict[str, Any]


@dataclass(frozen=True)
class Section:
    name: str
    covers: tuple[str, ...]
    rows: Callable[[Any], list[Row] | Row]


def _values(qs: Any, *fields: str) -> list[Row]:
    return [dict(row) for row in qs.values(*fields)]


def _question_fields(prefix: str = "question") -> tuple[str, ...]:
    """The item a row points at, by name only: its text stays behind the policy."""
    return (f"{prefix}__track__slug", f"{prefix}__number", f"{prefix}__slug", f"{prefix}__title")


def _profile(user: Any) -> Row:
    return {
        "email": user.email,
        "handle": user.username,
        "display_name": user.display_name,
        "theme": user.theme,
        "preferred_currency": user.preferred_currency,
        "email_replies": user.email_replies,
        "time_zone": user.time_zone,
        "date_joined": user.date_joined,
        "last_login": user.last_login,
        "is_staff": user.is_staff,
    }


def _emails(user: Any) -> list[Row]:
    return _values(
        EmailAddress.objects.filter(user=user).order_by("id"), "email", "verified", "primary"
    )


def _security(user: Any) -> list[Row]:
    # The kind and dates of each second factor; never its secret or codes.
    return _values(
        Authenticator.objects.filter(user=user).order_by("id"), "type", "created_at", "last_used_at"
    )


def _sessions(user: Any) -> list[Row]:
    return _values(
        UserSession.objects.filter(user=user).order_by("created_at"),
        "ip",
        "user_agent",
        "created_at",
        "last_seen_at",
    )


def _bookmarks(user: Any) -> list[Row]:
    return _values(
        Bookmark.objects.filter(user=user).order_by("id"),
        *_question_fields(),
        "concept__slug",
        "concept__title",
        "created_at",
    )


def _progress(user: Any) -> list[Row]:
    return _values(
        Progress.objects.filter(user=user).order_by("id"),
        *_question_fields(),
        "status",
        "approach",
        "approach_updated_at",
        "revealed_at",
        "created_at",
        "updated_at",
    )


def _lesson_progress(user: Any) -> list[Row]:
    return _values(
        LessonProgress.objects.filter(user=user).order_by("id"),
        "lesson__slug",
        "lesson__title",
        "done_at",
        "check_passed_at",
        "updated_at",
    )


def _review_cards(user: Any) -> list[Row]:
    return _values(
        ReviewCard.objects.filter(user=user).order_by("id"),
        *_question_fields(),
        "state",
        "step",
        "stability",
        "difficulty",
        "due",
        "last_review",
        "reps",
        "last_rating",
    )


def _review_attempts(user: Any) -> list[Row]:
    return _values(
        Attempt.objects.filter(user=user).order_by("id"),
        *_question_fields(),
        "rating",
        "reviewed_at",
        "due_after",
    )


def _difficulty_votes(user: Any) -> list[Row]:
    return _values(
        DifficultyVote.objects.filter(user=user).order_by("id"),
        *_question_fields(),
        "felt",
        "updated_at",
    )


def _graded_answers(user: Any) -> list[Row]:
    draws = _values(
        Draw.objects.filter(user=user).order_by("id"),
        "id",
        *_question_fields(),
        "number",
        "variant",
        "created_at",
    )
    answers: dict[int, list[Row]] = {}
    for a in _values(
        NumericAnswer.objects.filter(draw__user=user).order_by("id"),
        "draw_id",
        "follow_up",
        "value",
        "unit",
        "answer",
        "expected",
        "correct",
        "mistake",
        "created_at",
    ):
        answers.setdefault(a.pop("draw_id"), []).append(a)
    for d in draws:
        d["answers"] = answers.get(d["id"], [])
    return draws


def _key_points(user: Any) -> list[Row]:
    return _values(
        KeyPointScore.objects.filter(user=user).order_by("id"),
        *_question_fields(),
        "made",
        "total",
        "created_at",
    )


def _mocks(user: Any) -> list[Row]:
    sessions = _values(
        MockSession.objects.filter(user=user).order_by("id"),
        "id",
        "filters",
        "minutes_per_question",
        "started_at",
        "finished_at",
    )
    items: dict[int, list[Row]] = {}
    for item in _values(
        MockItem.objects.filter(session__user=user).order_by("session_id", "position"),
        "session_id",
        "position",
        *_question_fields(),
        "started_at",
        "answered_at",
        "response",
    ):
        items.setdefault(item.pop("session_id"), []).append(item)
    for s in sessions:
        s["items"] = items.get(s["id"], [])
    return sessions


def _cram_plans(user: Any) -> list[Row]:
    plans = _values(
        CramPlan.objects.filter(user=user).order_by("id"),
        "id",
        "interview_on",
        "track_slugs",
        "created_at",
        "archived_at",
    )
    items: dict[int, list[Row]] = {}
    for item in _values(
        CramItem.objects.filter(plan__user=user).order_by("plan_id", "day", "id"),
        "plan_id",
        *_question_fields(),
        "day",
        "reason",
        "done_at",
    ):
        items.setdefault(item.pop("plan_id"), []).append(item)
    for p in plans:
        p["items"] = items.get(p["id"], [])
    return plans


def _comments(user: Any) -> list[Row]:
    return _values(
        Comment.objects.filter(author=user).order_by("id"),
        "id",
        *_question_fields(),
        "concept__slug",
        "parent_id",
        "body",
        "created_at",
        "edited_at",
        "deleted_at",
        "hidden_at",
    )


def _comment_reports(user: Any) -> list[Row]:
    return _values(
        CommentReport.objects.filter(reporter=user).order_by("id"),
        "comment_id",
        "reason",
        "note",
        "created_at",
        "resolved_at",
    )


def _corrections(user: Any) -> list[Row]:
    # reports_for gives the reader's own note only, never the other reporters' (it adds
    # url, my_note and my_reports to each row, hence Any).
    reports: list[Any] = reports_for(user)
    return [
        {
            "url": c.url,
            "kind": c.kind,
            "state": c.state,
            "quote": c.quote,
            "note": c.my_note,
            "reported_at": c.my_reports[0].created_at if c.my_reports else None,
            "decided_at": c.decided_at,
            "change_note": c.change_note,
        }
        for c in reports
    ]


def _purchases(user: Any) -> list[Row]:
    # Every purchase, with the address of its receipt where it is one (it took money).
    receipts = set(access_selectors.receipts_of(user=user).values_list("id", flat=True))
    rows = _values(
        Purchase.objects.filter(user=user).order_by("id"),
        "id",
        "provider",
        "checkout_session_id",
        "payment_intent_id",
        "plan",
        "currency",
        "amount",
        "status",
        "created_at",
        "paid_at",
        "revoked_at",
    )
    for row in rows:
        row["receipt_url"] = (
            reverse("access:receipt", args=[row["id"]]) if row["id"] in receipts else None
        )
    return rows


def _entitlements(user: Any) -> list[Row]:
    return _values(
        Entitlement.objects.filter(user=user).order_by("id"),
        "plan",
        "source",
        "purchase_id",
        "reason",
        "granted_at",
        "revoked_at",
        "revoked_reason",
    )


def _calculator_runs(user: Any) -> list[Row]:
    return _values(
        CalculationRun.objects.filter(requested_by=user).order_by("id"),
        "calculator",
        "inputs",
        "preset",
        "status",
        "result",
        "error",
        "created_at",
        "finished_at",
    )


def _admin_actions(user: Any) -> list[Row]:
    return _values(
        LogEntry.objects.filter(user=user).order_by("id"),
        "action_time",
        "content_type__app_label",
        "content_type__model",
        "object_repr",
        "action_flag",
        "change_message",
    )


def _revisions(user: Any) -> list[Row]:
    return _values(Revision.objects.filter(user=user).order_by("id"), "date_created", "comment")


SECTIONS: tuple[Section, ...] = (
    Section("profile", (), _profile),
    Section("emails", ("account.EmailAddress.user",), _emails),
    Section("two_factor", ("mfa.Authenticator.user",), _security),
    Section("sessions", ("usersessions.UserSession.user",), _sessions),
    Section("bookmarks", ("community.Bookmark.user",), _bookmarks),
    Section("progress", ("community.Progress.user",), _progress),
    Section("lesson_progress", ("questions.LessonProgress.user",), _lesson_progress),
    Section("review_cards", ("community.ReviewCard.user",), _review_cards),
    Section("reviews", ("community.Attempt.user",), _review_attempts),
    Section("difficulty_votes", ("community.DifficultyVote.user",), _difficulty_votes),
    Section("graded_answers", ("community.Draw.user",), _graded_answers),
    Section("key_points", ("community.KeyPointScore.user",), _key_points),
    Section("mocks", ("community.MockSession.user",), _mocks),
    Section("cram_plans", ("community.CramPlan.user",), _cram_plans),
    Section("comments", ("community.Comment.author",), _comments),
    Section("comment_reports", ("community.CommentReport.reporter",), _comment_reports),
    Section("corrections", ("community.CorrectionReporter.user",), _corrections),
    Section("purchases", ("access.Purchase.user",), _purchases),
    Section("entitlements", ("access.Entitlement.user",), _entitlements),
    Section("calculator_runs", ("calculators.CalculationRun.requested_by",), _calculator_runs),
    Section("admin_actions", ("admin.LogEntry.user",), _admin_actions),
    Section("revisions", ("reversion.Revision.user",), _revisions),
)


def covered() -> set[str]:
    return {label for section in SECTIONS for label in section.covers}


def export_for(*, user: Any, sections: Iterable[Section] = SECTIONS) -> dict[str, Any]:
    """Everything the site holds about ``user``, one or two queries per section."""
    data: dict[str, Any] = {"format": FORMAT_VERSION, "exported_at": timezone.now()}
    for section in sections:
        data[section.name] = section.rows(user)
    return data


def export_json(*, user: Any) -> str:
    # DRF's encoder, so the file and the API's answer are the same document to the byte
    # of every timestamp.
    return json.dumps(export_for(user=user), cls=JSONEncoder, indent=2, ensure_ascii=False)


def export_filename() -> str:
    return f"inferview-data-{timezone.localdate().isoformat()}.json"
