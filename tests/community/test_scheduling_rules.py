"""Rules of the rating buttons' interval labels (``scheduling.preview_intervals``).

No database: the card is an unsaved ``ReviewCard``. The expected intervals come from
the ``fsrs`` package's unfuzzed scheduler, which is what the labels promise to show.
"""

import datetime as dt

import fsrs
import pytest

from inferview.community import scheduling
from inferview.community.models import Rating, ReviewCard

T0 = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)


def review_card(now=T0):
    """A card in review, last seen 100 days ago: its next intervals are months long, so
    fuzzing (a random spread of several days) would show."""
    return ReviewCard(
        state=ReviewCard.State.REVIEW,
        step=None,
        stability=100.0,
        difficulty=5.0,
        due=now,
        last_review=now - dt.timedelta(days=100),
    )


def unfuzzed(card, now):
    sched = fsrs.Scheduler(enable_fuzzing=False)
    return {
        r.value: sched.review_card(
            scheduling.card_to_fsrs(card), fsrs.Rating(r.value), review_datetime=now
        )[0].due
        - now
        for r in Rating
    }


def test_the_labels_of_a_card_in_review_are_its_own_intervals_not_a_new_cards():
    intervals = scheduling.preview_intervals(card=review_card(), now=T0)
    new_card = scheduling.preview_intervals(card=None, now=T0)
    assert intervals == unfuzzed(review_card(), T0)
    assert intervals[Rating.GOOD] > dt.timedelta(days=100) > new_card[Rating.GOOD]


def test_the_labels_are_unfuzzed_so_they_are_the_same_on_every_page_view():
    seen = [scheduling.preview_intervals(card=review_card(), now=T0) for _ in range(5)]
    assert all(s == unfuzzed(review_card(), T0) for s in seen)


def test_the_labels_give_one_interval_per_rating_in_rating_order():
    intervals = scheduling.preview_intervals(card=None, now=T0)
    assert list(intervals) == [1, 2, 3, 4]
    assert intervals[Rating.AGAIN] < intervals[Rating.HARD] < intervals[Rating.GOOD]
    assert intervals[Rating.GOOD] < intervals[Rating.EASY]


def test_without_a_time_the_labels_are_measured_from_now():
    intervals = scheduling.preview_intervals(card=None)
    assert intervals[Rating.AGAIN] == dt.timedelta(minutes=1)
    assert intervals[Rating.EASY] == dt.timedelta(days=8)


def test_the_given_time_is_the_one_the_card_is_reviewed_at():
    """Intervals of a card in review depend on how long since its last review."""
    card = review_card()
    later = T0 + dt.timedelta(days=50)
    assert scheduling.preview_intervals(card=card, now=later) == unfuzzed(card, later)
    assert scheduling.preview_intervals(card=card, now=later) != unfuzzed(card, T0)


def test_a_card_converts_to_fsrs_with_every_field():
    card = review_card()
    converted = scheduling.card_to_fsrs(card)
    assert converted.state == fsrs.State.Review and converted.step is None
    assert (converted.stability, converted.difficulty) == (100.0, 5.0)
    assert (converted.due, converted.last_review) == (T0, T0 - dt.timedelta(days=100))


def test_the_recording_scheduler_fuzzes_unless_settings_say_not(settings):
    settings.FSRS_ENABLE_FUZZING = False
    assert scheduling.scheduler().enable_fuzzing is False
    settings.FSRS_ENABLE_FUZZING = True
    assert scheduling.scheduler().enable_fuzzing is True
    del settings.FSRS_ENABLE_FUZZING
    assert scheduling.scheduler().enable_fuzzing is True


def test_a_saved_card_takes_its_row_id_to_fsrs_and_an_unsaved_one_a_fixed_id():
    saved = review_card()
    saved.pk = 42
    assert scheduling.card_to_fsrs(saved).card_id == 42
    assert scheduling.card_to_fsrs(review_card()).card_id == scheduling.UNSAVED_CARD_ID


def test_converting_and_labelling_never_make_fsrs_invent_an_id(monkeypatch):
    """fsrs.Card given no id makes one from the clock and sleeps a millisecond so the
    next differs: a page of rating buttons must not pay that per card."""

    def no_sleep(seconds):
        raise AssertionError(f"fsrs slept {seconds} s to invent a card id")

    monkeypatch.setattr(fsrs.card.time, "sleep", no_sleep)
    scheduling.card_to_fsrs(review_card())
    assert scheduling.preview_intervals(card=None, now=T0)[Rating.AGAIN] == dt.timedelta(minutes=1)


def test_a_new_cards_labels_are_those_of_a_fresh_fsrs_card():
    """The learning steps (1 and 10 minutes) and FSRS-6's first intervals, as fsrs
    schedules a card it has never seen, whenever it is asked."""
    fresh = fsrs.Scheduler(enable_fuzzing=False)
    for now in (T0, T0 + dt.timedelta(days=400)):
        expected = {
            r.value: fresh.review_card(fsrs.Card(card_id=7), fsrs.Rating(r.value), now)[0].due - now
            for r in Rating
        }
        assert scheduling.preview_intervals(card=None, now=now) == expected


@pytest.mark.parametrize(
    "when",
    [
        T0,
        dt.datetime(2031, 2, 28, 23, 59, 59, tzinfo=dt.UTC),
        dt.datetime(2026, 12, 6, 15, 7, tzinfo=dt.UTC),
    ],
)
def test_a_new_card_s_intervals_worked_out_once_hold_at_any_time(when):
    """The labels for a card never reviewed are worked out once per process: the same
    as reviewing a fresh card at any moment."""
    fresh = scheduling.card_to_fsrs(ReviewCard())
    direct = {
        r.value: scheduling.LABEL_SCHEDULER.review_card(
            fresh, fsrs.Rating(r.value), review_datetime=when
        )[0].due
        - when
        for r in Rating
    }
    assert scheduling.preview_intervals(card=None, now=when) == direct
