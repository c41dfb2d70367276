from django.apps import AppConfig


class CalculatorsConfig(AppConfig):
    name = "calculators"
    verbose_name = "Calculators"
    default_auto_field = "django.db.models.BigAutoField"
