from django.core.management.base import CommandError
from django.utils.translation import gettext

from ladder.records import RatingPeriod


def period_by_label(label: str) -> RatingPeriod:
    """Return the period with this label or fail with a message naming the ones that exist."""
    period = RatingPeriod.objects.filter(label=label).first()
    if period is None:
        known = list(RatingPeriod.objects.values_list("label", flat=True))
        if known:
            hint = gettext("Known periods: %(labels)s.") % {"labels": ", ".join(known)}
        else:
            hint = gettext("There are no periods yet.")
        raise CommandError(
            gettext("No rating period is labelled '%(label)s'.") % {"label": label} + " " + hint
        )
    return period
