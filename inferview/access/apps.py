from django.apps import AppConfig


class AccessConfig(AppConfig):
    name = "inferview.access"
    label = "access"
    verbose_name = "Access and payments"
