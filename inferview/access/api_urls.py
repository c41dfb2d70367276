from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api

router = SimpleRouter()
router.register("purchases", api.PurchaseViewSet, basename="purchase")

urlpatterns = [path("access/", api.AccessView.as_view(), name="access")] + router.urls
