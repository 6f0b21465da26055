from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "ladder"
    verbose_name = "Club records"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from ladder.records import versions as data_version
        from ladder.writes import webhooks

        post_save.connect(data_version.record_changed, dispatch_uid="ladder.records.versions.save")
        post_delete.connect(data_version.record_changed, dispatch_uid="ladder.records.versions.del")
        webhooks.connect()  # recorded webhook events are sent after their commit
