from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "ladder"
    verbose_name = "Club records"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_delete, post_save

        from ladder.records import checks, player_search, timestamps  # noqa: F401 (checks)
        from ladder.records import versions as data_version
        from ladder.writes import webhooks

        post_save.connect(data_version.record_changed, dispatch_uid="ladder.records.versions.save")
        post_delete.connect(data_version.record_changed, dispatch_uid="ladder.records.versions.del")
        connection_created.connect(
            player_search.set_threshold, dispatch_uid="ladder.records.player_search.threshold"
        )
        connection_created.connect(
            timestamps.use_c_loader, dispatch_uid="ladder.records.timestamps.c_loader"
        )
        webhooks.connect()  # recorded webhook events are sent after their commit
