"""The sitemap lists published pages by URL only: no answer text ever appears in it."""

from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from . import selectors
from .models import Concept, Guide, Lesson, Track


class StaticSitemap(Sitemap):
    changefreq = "weekly"

    def items(self):
        return ["questions:home", "questions:course", "questions:curriculum", "questions:guides"]

    def location(self, item):
        return reverse(item)


class TrackSitemap(Sitemap):
    def items(self):
        return Track.objects.published()

    def lastmod(self, obj):
        return obj.updated_at


class QuestionSitemap(Sitemap):
    def items(self):
        return (
            selectors.published_questions()
            .select_related("track")
            .order_by("track__order", "number")
        )

    def lastmod(self, obj):
        return obj.updated_at


class ConceptSitemap(Sitemap):
    def items(self):
        return Concept.objects.published()

    def lastmod(self, obj):
        return obj.updated_at


class GuideSitemap(Sitemap):
    def items(self):
        return Guide.objects.published()

    def lastmod(self, obj):
        return obj.updated_at


class LessonSitemap(Sitemap):
    """Every published lesson by URL (locked ones too: their page shows title, summary,
    table of contents and the paywall, never the body)."""

    def items(self):
        return (
            Lesson.objects.published()
            .filter(part__published=True)
            .select_related("part")
            .order_by("part__number", "number")
        )

    def lastmod(self, obj):
        return obj.updated_at


SITEMAPS = {
    "static": StaticSitemap,
    "tracks": TrackSitemap,
    "questions": QuestionSitemap,
    "concepts": ConceptSitemap,
    "guides": GuideSitemap,
    "lessons": LessonSitemap,
}
