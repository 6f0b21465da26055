"""A published line keeps what a one-off adjustment (FIDE.md 10.2) added to its rating, so that
the rating before the period's games reads right on adjusted lines. Lines published before
take it from the rating change they published, where its rating is still the one published."""

from django.db import migrations, models


def fill(apps, schema_editor):
    PublishedRating = apps.get_model("ratings", "PublishedRating")
    RatingChange = apps.get_model("ratings", "RatingChange")
    adjusted: dict[tuple[int, str], dict[int, tuple[int, int]]] = {}
    rows = RatingChange.objects.exclude(adjustment=0).values_list(
        "period_id", "rating_list", "player_id", "rating_after", "adjustment"
    )
    for period_id, rating_list, player_id, rating, adjustment in rows.iterator():
        adjusted.setdefault((period_id, rating_list), {})[player_id] = (rating, adjustment)
    for (period_id, rating_list), players in adjusted.items():
        lines = PublishedRating.objects.filter(
            publication__period_id=period_id,
            publication__rating_list=rating_list,
            player_id__in=list(players),
        ).only("pk", "player_id", "rating")
        changed = []
        for line in lines.iterator():
            rating, adjustment = players[line.player_id]
            if line.rating == rating:  # still the rating it published
                line.adjustment = adjustment
                changed.append(line)
        PublishedRating.objects.bulk_update(changed, ["adjustment"], batch_size=2000)


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0010_translated_model_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="publishedrating",
            name="adjustment",
            field=models.IntegerField(default=0),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
