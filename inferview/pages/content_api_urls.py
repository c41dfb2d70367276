from rest_framework.routers import DefaultRouter

from . import content_api as api

router = DefaultRouter()
router.register("tracks", api.TrackViewSet, basename="track")
router.register("questions", api.QuestionViewSet, basename="question")
router.register("concepts", api.ConceptViewSet, basename="concept")
router.register("guides", api.GuideViewSet, basename="guide")

urlpatterns = router.urls
