from django.urls import path

from . import profile_views, views

app_name = "accounts"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("delete/", views.delete_account, name="delete"),
    path("theme/", profile_views.theme, name="theme"),
]
