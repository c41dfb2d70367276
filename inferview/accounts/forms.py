import zoneinfo

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.core.exceptions import ValidationError

from inferview.access import pricing

from . import profile
from .models import Theme, User


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label="Your password",
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text="To confirm it is you.",
    )
    confirm = forms.BooleanField(
        label="I understand this deletes my account, progress, bookmarks and comments for good.",
    )

    def __init__(self, *args, user, throttled: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        self.throttled = throttled

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if self.throttled:
            return password  # not checked: a throttled form must not answer "right or wrong"
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your current password.")
        return password

    def clean(self):
        if self.throttled:
            raise forms.ValidationError(
                "Too many attempts to confirm your password. Wait 15 minutes, then try again."
            )
        return super().clean()


class CurrencyForm(forms.Form):
    currency = forms.ChoiceField(
        label="Currency for prices",
        choices=lambda: [(c, c) for c in pricing.currencies()],
    )


class EmailPreferencesForm(forms.Form):
    """Which emails a learner gets beyond their account's own (verification, resets)."""

    email_replies = forms.BooleanField(
        label="Email me replies to my comments and what became of my reports",
        required=False,
        help_text="One email for each reply to a comment of yours, with a link to it, and one "
        "when a mistake you reported is fixed or declined, with the author's note.",
    )

    #: What a checkbox sends: its value when ticked, nothing when not. BooleanField alone
    #: would take any other text as "yes"; such a post did not come from this form.
    TICKED = ("on", "true", "1")
    UNTICKED = ("", "off", "false", "0")

    def clean_email_replies(self) -> bool:
        raw = self.data.get(self.add_prefix("email_replies"))
        if raw is not None and raw.lower() not in self.TICKED + self.UNTICKED:
            raise forms.ValidationError("Tick the box or leave it empty.")
        return raw is not None and raw.lower() in self.TICKED


class TimeZoneForm(forms.Form):
    """The zone times are shown in; empty goes back to the browser's."""

    time_zone = forms.CharField(
        label="Time zone",
        required=False,
        max_length=64,
        help_text="Times of reviews, mocks and comments are shown in it. Your browser's "
        "zone is kept here when you first sign in.",
        widget=forms.Select(
            choices=lambda: (
                [("", "My browser's zone")]
                + [(z, z) for z in sorted(zoneinfo.available_timezones())]
            )
        ),
    )

    def clean_time_zone(self) -> str:
        try:
            return profile.check_time_zone(self.cleaned_data["time_zone"])
        except ValidationError as exc:
            raise ValidationError(exc.message_dict["time_zone"]) from exc


class ProfileForm(forms.Form):
    """The profile's own settings: display name and theme (currency has its own form)."""

    display_name = forms.CharField(
        label="Display name",
        required=False,
        max_length=60,  # the shape (3-30 after normalising) is checked by the profile module
        help_text="Shown beside your comments. 3-30 letters or digits, with single spaces, "
        "dots, hyphens or underscores between them. Leave empty to show your handle.",
        widget=forms.TextInput(attrs={"autocomplete": "nickname", "spellcheck": "false"}),
    )
    theme = forms.ChoiceField(
        label="Appearance",
        choices=Theme.choices,
        widget=forms.RadioSelect,
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_display_name(self) -> str:
        return profile.check_display_name(user=self.user, name=self.cleaned_data["display_name"])


class SignupForm(AllauthSignupForm):
    """allauth's sign-up with an optional public name (``ACCOUNT_FORMS["signup"]``).

    The page shows the handle the account will get when the name is left empty: it is drawn
    here and carried, signed, in a hidden field to ``AccountAdapter.save_user``."""

    display_name = forms.CharField(
        label="Public name (optional)",
        required=False,
        max_length=60,  # the shape (3-30 after normalising) is checked by the profile module
        widget=forms.TextInput(attrs={"autocomplete": "nickname", "spellcheck": "false"}),
    )
    handle = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        token = self.data.get(self.add_prefix("handle"), "") if self.is_bound else ""
        self.default_handle = profile.unsign_handle(token) or profile.new_handle()
        signed = profile.sign_handle(self.default_handle)
        if self.is_bound:
            self.data = self.data.copy()
            self.data[self.add_prefix("handle")] = signed
        self.initial["handle"] = signed
        name = self.fields["display_name"]
        name.widget.attrs["placeholder"] = self.default_handle
        name.help_text = (
            f"Shown beside your comments. Leave empty to show your handle, "
            f"{self.default_handle}. 3-30 letters or digits, with single spaces, dots, "
            "hyphens or underscores between them. You can change it later on your account page."
        )
        self.order_fields(["email", "display_name"])

    def clean_handle(self) -> str:
        return self.default_handle

    def clean_display_name(self) -> str:
        return profile.check_display_name(
            user=User(username=self.default_handle), name=self.cleaned_data["display_name"]
        )
