"""Give the "Club administrators" group the permissions of tournaments and base corrections
(add, change, delete, view), as it has the games'."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Club administrators"
ACTIONS = ("add", "change", "delete", "view")
MODELS = ("tournament", "basecorrection")


def grant(apps, schema_editor):
    app_config = apps.get_app_config("ladder")
    original = getattr(app_config, "models_module", None)
    app_config.models_module = original or True  # a migration state's app has none
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = original
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=GROUP).first()
    if group is None:
        return
    group.permissions.add(
        *Permission.objects.filter(
            content_type__app_label="ladder",
            content_type__model__in=MODELS,
            codename__in=[f"{action}_{model}" for action in ACTIONS for model in MODELS],
        )
    )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=GROUP).first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(
                content_type__model__in=MODELS, content_type__app_label="ladder"
            )
        )


class Migration(migrations.Migration):
    dependencies = [("ladder", "0018_base_corrections")]

    operations = [migrations.RunPython(grant, revoke)]
