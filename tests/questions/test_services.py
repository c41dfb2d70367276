import pytest

from questions import services
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db


def test_updated_at_moves_only_on_content_change():
    q = QuestionFactory()
    services.save_content(q)
    stamp = q.updated_at
    q.published = not q.published
    services.save_content(q)  # publishing is not a content edit
    assert q.updated_at == stamp
    q.answer += " More."
    assert services.save_content(q) is True
    assert q.updated_at > stamp


def test_renumber_closes_gaps():
    q1 = QuestionFactory(number=4)
    q2 = QuestionFactory(track=q1.track, number=9)
    services.renumber_track(track=q1.track)
    q1.refresh_from_db()
    q2.refresh_from_db()
    assert (q1.number, q2.number) == (1, 2)
