"""FSRS scheduling: the ``fsrs`` package's scheduler and conversion from our rows.

``ReviewCard`` stores exactly ``fsrs.Card``'s fields, so a card round-trips without loss;
the scheduler uses the package's default FSRS-6 weights and learning steps (1 and 10
minutes). Fuzzing (a small random spread of intervals, so cards rated together do not
all fall due together) is on unless ``FSRS_ENABLE_FUZZING`` is false, as in tests that
check exact due dates.
"""

from __future__ import annotations

import datetime as dt
import functools

import fsrs
from django.conf import settings
from django.utils import timezone

from .models import Rating, ReviewCard


def scheduler() -> fsrs.Scheduler:
    """The scheduler that records reviews (fuzzed unless FSRS_ENABLE_FUZZING is false)."""
    return fsrs.Scheduler(enable_fuzzing=getattr(settings, "FSRS_ENABLE_FUZZING", True))


# The labels' scheduler: unfuzzed, so the labels are stable between page views. It holds
# only its parameters, so one serves every request.
LABEL_SCHEDULER = fsrs.Scheduler(enable_fuzzing=False)

# The id plays no part in scheduling; passing one (the row's, or this for a card not yet
# saved) stops fsrs.Card from sleeping a millisecond to make a unique timestamp id.
UNSAVED_CARD_ID = 1


def card_to_fsrs(card: ReviewCard) -> fsrs.Card:
    return fsrs.Card(
        card_id=card.pk or UNSAVED_CARD_ID,
        state=fsrs.State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
    )


def preview_intervals(
    *, card: ReviewCard | None, now: dt.datetime | None = None
) -> dict[int, dt.timedelta]:
    """What each rating would schedule now, for the labels on the rating buttons.

    Unfuzzed, so the labels are stable between page views; the recorded review may
    land a little either side once it is past the learning steps.
    """
    if card is None:
        return dict(_new_card_intervals())
    return _intervals(card_to_fsrs(card), now or timezone.now())


def _intervals(base: fsrs.Card, now: dt.datetime) -> dict[int, dt.timedelta]:
    return {
        r.value: LABEL_SCHEDULER.review_card(base, fsrs.Rating(r.value), review_datetime=now)[0].due
        - now
        for r in Rating
    }


@functools.cache
def _new_card_intervals() -> tuple[tuple[int, dt.timedelta], ...]:
    """What each rating schedules for a card never reviewed, worked out once per process:
    a new card is an unsaved row with the model's defaults (learning, step 0), which are
    fsrs.Card's, and neither its due date nor the time of its first review plays a part
    in that review's intervals (the labels' scheduler has no fuzz)."""
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    return tuple(_intervals(card_to_fsrs(ReviewCard()), now).items())
