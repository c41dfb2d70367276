"""Template access to the paywall figures and prices, so a template that includes the
paywall needs nothing from its view but the item."""

from django import template

from inferview.access import policy, pricing, selectors

register = template.Library()


@register.simple_tag(takes_context=True)
def paywall_figures(context, item):
    request = context.get("request")
    return selectors.paywall_for(user=getattr(request, "user", None), item=item)


@register.simple_tag(takes_context=True)
def viewer_price(context):
    return pricing.premium_price(pricing.viewer_currency(context.get("request")))


@register.simple_tag(takes_context=True)
def other_prices(context):
    current = pricing.viewer_currency(context.get("request"))
    return [p for p in pricing.all_prices() if p.currency != current]


@register.simple_tag(takes_context=True)
def viewer_tier_name(context):
    request = context.get("request")
    return policy.viewer_tier(getattr(request, "user", None)).name.lower()


@register.simple_tag
def reads_per_track():
    """Answers per track each tier reads, counted from the published questions."""
    return selectors.reads_per_track()
