"""Premium prices and the viewer's currency.

Prices live in ``settings.PREMIUM_PRICES`` (minor units per currency). The viewer's
currency is, first to last: the signed-in user's saved preference, a choice made in
this session, the currency of the browser's languages (``Accept-Language``: ``en-IN`` or
``hi`` -> INR), ``settings.DEFAULT_CURRENCY``.

The saved preference is a field of the accounts app, a floor above this one, so this
module reads it off the user but never writes it: ``set_viewer_currency`` calls the
saver the accounts app registers (``register_preference_saver``), as
``questions.dependents`` takes its providers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation.trans_real import parse_accept_lang_header

SESSION_KEY = "currency"

#: Where a browser's language tag names a region, the region's currency; a tag without
#: one (``en``, ``fr``) says nothing and the next tag is asked. Only regions whose
#: currency is on sale are listed: any other region (``en-US``, ``en-GB``) gets the default.
CURRENCY_BY_REGION = {"IN": "INR"}
#: Languages spoken (as a first language) almost only in India, so a bare ``hi`` or ``ta``
#: is as good as ``-IN``. Urdu and Bengali are also Pakistan's and Bangladesh's: not listed.
CURRENCY_BY_LANGUAGE = dict.fromkeys(
    ("hi", "mr", "gu", "ta", "te", "kn", "ml", "pa", "or", "as", "kok", "mai"), "INR"
)
#: ``saver(user=..., currency=...)``: keyword-only, like the services it names.
PreferenceSaver = Callable[..., None]
_savers: list[PreferenceSaver] = []


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


def currency_for_languages(header: str) -> str | None:
    """The currency the browser's languages point to, or None when they say nothing.

    Tags are read most wanted first, as Django's own locale middleware reads them (a
    malformed header says nothing). The first tag that names a region decides (``en-IN``
    -> INR, ``en-US`` -> None: the default); a tag without a region decides only if its
    language is listed."""
    for tag, q in parse_accept_lang_header(header or ""):
        if q <= 0:  # q=0 means "not this one"
            continue
        language, _, rest = tag.partition("-")
        # the region is the first two-letter (or three-digit) subtag after the language
        region = next(
            (s.upper() for s in rest.split("-") if len(s) == 2 or (len(s) == 3 and s.isdigit())),
            "",
        )
        found = CURRENCY_BY_REGION.get(region) if region else CURRENCY_BY_LANGUAGE.get(language)
        if region or found:
            return found if is_supported(found) else None
    return None


def viewer_currency(request: Any) -> str:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and is_supported(user.preferred_currency):
        return user.preferred_currency
    session = getattr(request, "session", None)
    if session is not None and is_supported(session.get(SESSION_KEY)):
        return session[SESSION_KEY]
    meta = getattr(request, "META", None) or {}
    from_locale = currency_for_languages(meta.get("HTTP_ACCEPT_LANGUAGE", ""))
    return from_locale or settings.DEFAULT_CURRENCY


def register_preference_saver(saver: PreferenceSaver) -> PreferenceSaver:
    """Add ``saver(user=..., currency=...)``, called with a signed-in viewer's choice."""
    if saver not in _savers:
        _savers.append(saver)
    return saver


def set_viewer_currency(request: Any, currency: str) -> None:
    """Remember the choice in the session, and (through the registered savers) on the
    profile of a signed-in user."""
    if not is_supported(currency):
        raise ValueError(f"unsupported currency {currency!r}")
    request.session[SESSION_KEY] = currency
    user = request.user
    if user.is_authenticated:
        for saver in _savers:
            saver(user=user, currency=currency)
