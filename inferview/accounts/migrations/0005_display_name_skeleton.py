"""Display names compared by their UTS #39 skeleton (``accounts.names``).

Existing names are normalised (NFKC) and given their skeleton, oldest account first. A
later name that looks like an earlier one (or is now refused for mixing scripts) is
cleared: that learner is shown their handle again until they choose another name, which is
what any learner without a name sees. Nothing else of the account changes."""

from django.db import migrations, models


def fill_skeletons(apps, schema_editor):
    from inferview.accounts import names

    User = apps.get_model("accounts", "User")
    seen = set()
    for user in User.objects.exclude(display_name="").order_by("date_joined", "pk"):
        name = names.normalise(user.display_name)
        key = names.skeleton(name)
        if key in seen or names.script_problem(name):
            user.display_name, user.name_skeleton = "", ""
        else:
            seen.add(key)
            user.display_name, user.name_skeleton = name, key
        user.save(update_fields=["display_name", "name_skeleton"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_email_replies"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="name_skeleton",
            field=models.CharField(blank=True, default="", editable=False, max_length=255),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                condition=models.Q(("name_skeleton", ""), _negated=True),
                fields=("name_skeleton",),
                name="accounts_user_name_skeleton_unique",
                violation_error_message="That display name is taken.",
            ),
        ),
    ]
