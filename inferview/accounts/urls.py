from django.urls import path

from . import profile_views, views

app_name = "accounts"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("delete/", views.delete_account, name="delete"),
    path("theme/", profile_views.theme, name="theme"),
    path("sessions/end/", views.end_sessions, name="end_sessions"),
    path("export/", views.export_download, name="export"),
    path("two-factor-required/", views.two_factor_required, name="two_factor_required"),
]
