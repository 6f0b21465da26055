"""Create the "Club administrators" group with exactly the permissions to run the ladder."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Club administrators"
PERMISSIONS = {
    "ladder": {
        "player": ("add", "change", "delete", "view"),
        "game": ("add", "change", "delete", "view"),
        "ratingperiod": ("add", "change", "delete", "view"),
        "periodlog": ("view",),
    },
    "ratings": {"ratingchange": ("view",)},
}


def create_group(apps, schema_editor):
    # Permissions are normally created after all migrations (post_migrate); create them now so
    # that a fresh database gets a complete group in one migrate run.
    for app_label in PERMISSIONS:
        app_config = apps.get_app_config(app_label)
        original = getattr(app_config, "models_module", None)
        app_config.models_module = original or True  # a migration state's app has none
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = original
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    wanted = [
        Permission.objects.get(
            content_type__app_label=app_label,
            content_type__model=model,
            codename=f"{action}_{model}",
        )
        for app_label, models in PERMISSIONS.items()
        for model, actions in models.items()
        for action in actions
    ]
    group.permissions.set(wanted)


def delete_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0001_initial"),
        ("ratings", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, delete_group)]
