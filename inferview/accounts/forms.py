from django import forms

from inferview.access import pricing


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
