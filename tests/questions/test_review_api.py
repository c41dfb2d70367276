"""Review: the guide API must not list draft concepts (the HTML guide page does not)."""

import pytest

from tests.factories import ConceptFactory, GuideFactory, GuideItemFactory, GuideSectionFactory

pytestmark = pytest.mark.django_db


def test_guide_detail_api_lists_only_published_concepts(client):
    guide = GuideFactory()
    section = GuideSectionFactory(guide=guide)
    GuideItemFactory(section=section)
    live = ConceptFactory(slug="live-concept")
    draft = ConceptFactory(slug="unreleased-draft-concept", published=False)
    section.concepts.set([live, draft])

    api = client.get(f"/api/v1/guides/{guide.slug}/")
    assert api.status_code == 200
    assert api.json()["sections"][0]["concepts"] == ["live-concept"]
    assert "unreleased-draft-concept" not in client.get(guide.get_absolute_url()).content.decode()
