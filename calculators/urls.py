from django.urls import path

from calculators import views

app_name = "calculators"

urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:slug>/", views.calculator, name="detail"),
    path("<slug:slug>/runs/<uuid:run_id>/", views.run_detail, name="run"),
]
