from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "inferview.accounts"
    label = "accounts"
    verbose_name = "Accounts"
