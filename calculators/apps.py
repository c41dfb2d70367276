from django.apps import AppConfig


class CalculatorsConfig(AppConfig):
    name = "calculators"
    verbose_name = "Calculators"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Chart kinds drawn outside charts.py register themselves on import.
        from calculators import chart_serving  # noqa: F401
