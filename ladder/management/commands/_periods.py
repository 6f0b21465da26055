from django.core.management.base import CommandError

from ladder.records import RatingPeriod


def period_by_label(label: str) -> RatingPeriod:
    """Return the period with this label or fail with a message naming the ones that exist."""
    period = RatingPeriod.objects.filter(label=label).first()
    if period is None:
        known = list(RatingPeriod.objects.values_list("label", flat=True))
        hint = f" Known periods: {', '.join(known)}." if known else " There are no periods yet."
        raise CommandError(f"No rating period is labelled '{label}'.{hint}")
    return period
