"""Premium prices and the viewer's currency.

Prices live in ``settings.PREMIUM_PRICES`` (minor units per currency). The viewer's
currency is their choice: the profile for a signed-in user, the session for anyone,
``settings.DEFAULT_CURRENCY`` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

SESSION_KEY = "currency"


@dataclass(frozen=True)
class Price:
    currency: str
    amount: int  # minor units

    @property
    def display(self) -> str:
        return format_amount(self.currency, self.amount)


def currencies() -> list[str]:
    return list(settings.PREMIUM_PRICES)


def is_supported(currency: str | None) -> bool:
    return bool(currency) and currency in settings.PREMIUM_PRICES


def premium_price(currency: str) -> Price:
    entry: dict[str, Any] = settings.PREMIUM_PRICES[currency]
    return Price(currency=currency, amount=int(entry["amount"]))


def all_prices() -> list[Price]:
    return [premium_price(c) for c in currencies()]


def format_amount(currency: str, amount: int) -> str:
    """``2500, USD`` -> ``$25``; ``200000, INR`` -> ``₹2,000`` (cents shown only if any)."""
    entry = settings.PREMIUM_PRICES.get(currency, {})
    symbol = entry.get("symbol", f"{currency} ")
    major, minor = divmod(int(amount), 100)
    text = f"{major:,}" if minor == 0 else f"{major:,}.{minor:02d}"
    return f"{symbol}{text}"


def viewer_currency(request: Any) -> str:
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    if session is not None and is_supported(session.get(SESSION_KEY)):
        return session[SESSION_KEY]
    if user is not None and user.is_authenticated and is_supported(user.preferred_currency):
        return user.preferred_currency
    return settings.DEFAULT_CURRENCY


def set_viewer_currency(request: Any, currency: str) -> None:
    """Remember the choice in the session, and on the profile for a signed-in user."""
    if not is_supported(currency):
        raise ValueError(f"unsupported currency {currency!r}")
    request.session[SESSION_KEY] = currency
    user = request.user
    if user.is_authenticated and user.preferred_currency != currency:
        user.preferred_currency = currency
        user.save(update_fields=["preferred_currency"])
