from django.urls import path

from . import views

app_name = "access"

urlpatterns = [
    path("premium/", views.premium, name="premium"),
    path("premium/currency/", views.set_currency, name="currency"),
    path("premium/checkout/", views.checkout, name="checkout"),
    path("premium/checkout/success/", views.checkout_success, name="checkout-success"),
    path("premium/checkout/cancelled/", views.checkout_cancelled, name="checkout-cancelled"),
    path("premium/checkout/local/<str:session_id>/", views.local_checkout, name="local-checkout"),
    path("payments/webhook/stripe/", views.stripe_webhook, name="stripe-webhook"),
    path("account/receipts/", views.receipts, name="receipts"),
    path("account/receipts/<int:pk>/", views.receipt_detail, name="receipt"),
]
