from django.urls import path

from calculators import api

app_name = "calculators-api"

urlpatterns = [
    path("", api.CalculatorListView.as_view(), name="list"),
    path("presets/", api.PresetListView.as_view(), name="presets"),
    path("runs/<uuid:run_id>/", api.RunDetailView.as_view(), name="run-detail"),
    path("<slug:slug>/", api.CalculatorDetailView.as_view(), name="detail"),
    path("<slug:slug>/runs/", api.RunCreateView.as_view(), name="runs"),
]
