from django.urls import path
from rest_framework.routers import DefaultRouter

from . import content_api as api
from . import course_api

router = DefaultRouter()
router.register("tracks", api.TrackViewSet, basename="track")
router.register("questions", api.QuestionViewSet, basename="question")
router.register("concepts", api.ConceptViewSet, basename="concept")
router.register("guides", api.GuideViewSet, basename="guide")
router.register("lessons", course_api.LessonViewSet, basename="lesson")

urlpatterns = [
    *router.urls,
    path(
        "lessons/<slug:slug>/progress/",
        course_api.LessonProgressView.as_view(),
        name="api-lesson-progress",
    ),
    path(
        "lessons/<slug:slug>/check/", course_api.LessonCheckView.as_view(), name="api-lesson-check"
    ),
]
