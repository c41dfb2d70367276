from django.urls import path

from . import api

urlpatterns = [path("account/export/", api.AccountExportView.as_view(), name="account-export")]
