"""The learner's dashboard, composed from the concern modules."""

from __future__ import annotations

import datetime as dt
from typing import Any

from inferview.access import policy
from inferview.community.bookmarks.selectors import (
    bookmarks_for,
)
from inferview.community.corrections.selectors import reports_for
from inferview.community.discussion.selectors import (
    recent_comments,
)
from inferview.community.practice import cram, graded
from inferview.community.practice.next_steps import learner_streak, next_unread_per_track
from inferview.community.practice.selectors import (
    attach_track_progress,
    recent_attempts,
    reviews_for,
)
from questions import lessons as course
from questions import selectors as question_selectors


def dashboard(user: Any, *, now: dt.datetime | None = None) -> dict[str, Any]:
    tracks = list(question_selectors.tracks_with_counts())
    attach_track_progress(user, tracks)
    due, later = reviews_for(user, now=now)
    plan = cram.active(user)
    return {
        "cram": cram.view(plan, today=now.date() if now else None) if plan else None,
        "practice_stats": graded.stats(user),
        "streak": learner_streak(user, now=now),
        "next_unread": next_unread_per_track(
            user, tracks, readable_levels=policy.readable_levels(user)
        ),
        "tracks": tracks,
        "due": due,
        "upcoming": later,
        "bookmarks": bookmarks_for(user),
        "comments": recent_comments(user),
        "attempts": recent_attempts(user),
        "reports": reports_for(user),
        "course": course.learner_summary(user),
    }
