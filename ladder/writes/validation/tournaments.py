"""The tournament a game is entered in: named by a door, or the event inside its month.

A door names a tournament as a record (``Tournament``: the API, the admin, a file import that
made it) or as the text a file holds (``TournamentSpec``: a CSV's ``tournament``, ``start``,
``end`` and ``rated_in`` columns). A game that names none belongs to its event inside its
month (FIDE.md 6 Decision: the games without an event form one event per period), as every
game did before tournaments were records. The period a game is rated in is its tournament's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from ladder.records import Game, RatingPeriod, Tournament, closed_message
from ladder.records.codes import CONFLICT
from ladder.records.tournaments import check_rated_in


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """A tournament as a file writes it: its name and dates, and the label of the period that
    rates it when the report is late (blank: the period holding its end)."""

    name: str
    start: date
    end: date
    rated_in: str = ""
    origin: str = Tournament.Origin.CSV
    origin_file: str = ""


def event_tournament_name(event: str, period: RatingPeriod) -> str:
    """The name of the tournament that holds a month's games of an event (or of no event)."""
    return event or f"Games of {period.label}"


def rated_period(
    spec: TournamentSpec, periods: list[RatingPeriod]
) -> tuple[RatingPeriod | None, dict[str, str]]:
    """The period that rates a tournament named by a file (None: its end's month, not yet
    created), or the problems by field."""
    if spec.end < spec.start:
        return None, {"end": gettext("A tournament cannot end before it starts.")}
    if spec.rated_in:
        period = next((p for p in periods if p.label == spec.rated_in), None)
        if period is None:
            return None, {
                "rated_in": gettext("No rating period is labelled '%(label)s'.")
                % {"label": spec.rated_in}
            }
    else:
        period = next((p for p in periods if p.contains(spec.end)), None)
        if period is None:
            return None, {}
    try:
        check_rated_in(spec.end, period)
    except ValidationError as error:
        return None, {k: " ".join(v) for k, v in error.message_dict.items()}
    return period, {}


def closed_problem(period: RatingPeriod | None) -> str | None:
    """The closed-period sentence when the period rating a tournament is closed."""
    if period is not None and period.is_closed:
        return closed_message(period)
    return None


def tournament_for(spec: TournamentSpec, rating_list: str) -> Tournament:
    """The recorded tournament a file names (by name, start and list), created when new.

    A tournament already recorded keeps its dates and period: a file that gives others is
    refused, naming them.
    """
    found = Tournament.objects.filter(
        name=spec.name, start=spec.start, rating_list=rating_list
    ).first()
    period = _period_for(spec)
    if found is not None:
        if found.end != spec.end or found.rated_in_id != period.pk:
            raise ValidationError(
                {
                    "tournament": gettext(
                        "The tournament %(name)s is recorded from %(start)s to %(end)s, rated in "
                        "%(rated_in)s; this file says %(file_start)s to %(file_end)s, rated in "
                        "%(period)s."
                    )
                    % {
                        "name": found.name,
                        "start": found.start,
                        "end": found.end,
                        "rated_in": found.rated_in.label,
                        "file_start": spec.start,
                        "file_end": spec.end,
                        "period": period.label,
                    }  # fmt: skip
                }
            )
        return found
    tournament = Tournament(
        name=spec.name,
        start=spec.start,
        end=spec.end,
        rating_list=rating_list,
        rated_in=period,
        origin=spec.origin,
        origin_file=spec.origin_file[: Tournament._meta.get_field("origin_file").max_length],
    )
    # The fields' validators (the name's characters); the dates and the period were checked
    # with the games, and the database holds the constraints.
    tournament.full_clean(exclude=["rated_in"], validate_unique=False, validate_constraints=False)
    tournament.save()
    return tournament


def _period_for(spec: TournamentSpec) -> RatingPeriod:
    if spec.rated_in:
        return RatingPeriod.objects.get(label=spec.rated_in)
    return RatingPeriod.objects.for_date(spec.end)


def event_tournament(event: str, period: RatingPeriod, rating_list: str) -> Tournament:
    """The tournament of an event's games inside a period (created when first entered): it
    starts and ends with the period, so the list that opens the period rates it."""
    name = event_tournament_name(event, period)
    tournament, _ = Tournament.objects.get_or_create(
        name=name,
        start=period.start,
        rating_list=rating_list,
        defaults={"end": period.end, "rated_in": period},
    )
    return tournament


def check_tournament_change(tournament: Tournament) -> None:
    """Refuse a change that would strand a tournament's games: another list, or dates that
    leave out one of them (``ValidationError`` naming the field)."""
    if tournament.pk is None:
        return
    stored = Tournament.objects.filter(pk=tournament.pk).first()
    if stored is None:
        return
    games = stored.games.all()
    if stored.rating_list != tournament.rating_list and games.exists():
        message = gettext("The tournament has games on its list; it keeps that list.")
        raise ValidationError({"rating_list": ValidationError(message, code=CONFLICT)})
    if tournament.start is None or tournament.end is None:
        return
    outside = games.exclude(date__gte=tournament.start, date__lte=tournament.end).first()
    if outside is not None:
        message = gettext(
            "Its game of %(day)s (#%(pk)s) would fall outside "
            "%(start)s to %(end)s; correct the game first."
        ) % {
            "day": outside.date,
            "pk": outside.pk,
            "start": tournament.start,
            "end": tournament.end,
        }  # fmt: skip
        raise ValidationError({"start": ValidationError(message, code=CONFLICT)})


def check_tournament_deletion(tournaments: list[Tournament]) -> None:
    """Refuse to delete tournaments that hold games, naming them (one query)."""
    with_games = set(
        Game.objects.filter(tournament__in=[t.pk for t in tournaments])
        .order_by()
        .values_list("tournament", flat=True)
        .distinct()
    )
    busy = [t.name for t in tournaments if t.pk in with_games]
    if busy:
        raise ValidationError(
            gettext("Delete the games of %(names)s first: a tournament with games stays.")
            % {"names": ", ".join(busy)},
            code=CONFLICT,
        )
