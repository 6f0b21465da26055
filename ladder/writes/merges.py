"""Merging two records of one person, and undoing it (``actions.merge_players`` and
``actions.unmerge_players`` call these inside their transaction, with their locks taken).

A merge moves every reference to the merged player onto the kept one: each game's side and
each base correction (the rating history, derived, is rated again; the published lists and
the history versions stay as they were written, and a revision says what changed). The kept
player takes the merged one's FIDE id, federation, title and sex where their own are blank.
The merged record stays, marked ``merged_into``, so that its old links lead to the kept player
and an unmerge can put back exactly what moved (recorded in ``PlayerMerge.moved``).

Both rate again from the earliest period they change, through a rating run. When that touches
a closed period, the run executes inside the transaction and a revision of every closed list
it changed is published at once (up to the first open period, as a correction's would be),
with the merge as its reason; a closed period beyond its correction window needs what
reopening it needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from simple_history.utils import bulk_update_with_history

from ladder.exceptions import ReopenRefused
from ladder.records import (
    BaseCorrection,
    Game,
    NotDuplicate,
    Player,
    PlayerMerge,
    RatingPeriod,
    refuse_control_characters_but_lines,
)
from ladder.records import versions as data_version
from ladder.records.codes import CONFLICT
from ladder.records.merges import TAKEN_IDENTITY
from ladder.writes import correction_window
from ratings import publication, runs
from ratings.models import Publication, RatingRun, RunStatus

_HISTORY_REASON = 100  # simple-history keeps 100 characters of a change's reason


@dataclass
class MergeOutcome:
    """What a merge or an unmerge did."""

    record: PlayerMerge
    games: int
    base_corrections: int
    identity: dict[str, Any]
    from_period: RatingPeriod | None
    revisions: list[Publication] = field(default_factory=list)

    def describe(self) -> str:
        """One sentence for a door to show."""
        record = self.record
        what = ngettext("%(count)d game", "%(count)d games", self.games) % {"count": self.games}
        if self.base_corrections:
            what = ngettext(
                "%(games)s and %(count)d base correction",
                "%(games)s and %(count)d base corrections",
                self.base_corrections,
            ) % {"games": what, "count": self.base_corrections}
        names = {"merged": record.merged, "kept": record.kept, "what": what}
        if record.undone_at and self.from_period:
            said = gettext(
                "Unmerged %(merged)s from %(kept)s: %(what)s moved back, rated again from "
                "%(period)s."
            )
        elif record.undone_at:
            said = gettext("Unmerged %(merged)s from %(kept)s: %(what)s moved back.")
        elif self.from_period:
            said = gettext(
                "Merged %(merged)s into %(kept)s: %(what)s moved, rated again from %(period)s."
            )
        else:
            said = gettext("Merged %(merged)s into %(kept)s: %(what)s moved.")
        said %= {**names, "period": self.from_period.label if self.from_period else ""}
        if self.revisions:
            labels = sorted({p.period.label for p in self.revisions})
            said += " " + gettext("Revised published lists: %(labels)s.") % {
                "labels": ", ".join(labels)
            }
        return said


def clean_reason(reason: str | None, *, required: bool) -> str:
    """The reason stripped; raise a ``reason`` field error when it is missing or unprintable."""
    reason = (reason or "").strip()
    if required and not reason:
        raise ValidationError({"reason": gettext("Give a reason for the merge; it is recorded.")})
    try:
        refuse_control_characters_but_lines(reason)
    except ValidationError as error:
        raise ValidationError({"reason": error.messages}) from error
    return reason


def lock_pair(keep_id: Any, other_id: Any) -> tuple[Player, Player]:
    """Lock and return the two players (in id order); field errors for an unknown or equal id."""
    errors: dict[str, str] = {}
    ids = {}
    for name, value in (("keep", keep_id), ("other", other_id)):
        try:
            ids[name] = int(value)
        except (TypeError, ValueError):
            errors[name] = gettext("“%(value)s” is not a player id (a whole number).") % {
                "value": value
            }
    if errors:
        raise ValidationError(errors)
    if ids["keep"] == ids["other"]:
        raise ValidationError({"other": gettext("A player cannot be merged with themselves.")})
    locked = Player.objects.select_for_update().filter(pk__in=ids.values()).order_by("pk")
    found = {p.pk: p for p in locked}
    for name, pk in ids.items():
        if pk not in found:
            errors[name] = gettext("There is no player #%(id)s.") % {"id": pk}
    if errors:
        raise ValidationError(errors)
    return found[ids["keep"]], found[ids["other"]]


def lock_merged(other_id: Any) -> Player:
    """Lock and return a merged player and the one they were merged into (in id order)."""
    try:
        pk = int(other_id)
    except (TypeError, ValueError):
        message = gettext("“%(value)s” is not a player id (a whole number).") % {"value": other_id}
        raise ValidationError({"other": message}) from None
    record = PlayerMerge.objects.active().filter(merged_id=pk).first()
    ids = {pk} | ({record.kept_id} if record is not None else set())
    locked = {p.pk: p for p in Player.objects.select_for_update().filter(pk__in=ids).order_by("pk")}
    if pk not in locked:
        raise ValidationError({"other": gettext("There is no player #%(id)s.") % {"id": pk}})
    return locked[pk]


def remember_not_duplicate(first: Player, second: Player, *, user: Any, note: str) -> NotDuplicate:
    """Record (once) that two players are different people."""
    if first.pk == second.pk:
        raise ValidationError(
            {"other": gettext("A player is always the same person as themselves.")}
        )
    low, high = sorted((first, second), key=lambda p: p.pk)
    try:
        refuse_control_characters_but_lines(note)
    except ValidationError as error:
        raise ValidationError({"note": error.messages}) from error
    found, _ = NotDuplicate.objects.get_or_create(
        first=low, second=high, defaults={"user": user, "note": note.strip()[:200]}
    )
    return found


def merge(
    *, kept: Player, merged: Player, reason: str, user: Any, now: datetime | None
) -> MergeOutcome:
    """Merge ``merged`` into ``kept`` (both locked); see the module's docstring."""
    _check_not_merged(kept, merged)
    _check_fide_ids(kept, merged)
    games = list(
        Game.objects.select_for_update(of=("self",))
        .filter(Q(white=merged) | Q(black=merged))
        .select_related("period")
        .order_by("date", "pk")
    )
    corrections = list(
        BaseCorrection.objects.select_for_update(of=("self",))
        .filter(player=merged)
        .select_related("period")
    )
    _check_games(kept, merged, games)
    _check_corrections(kept, merged, corrections)
    start = _earliest(merged, [g.period for g in games] + [c.period for c in corrections])
    _check_window(start, user=user, now=now)
    said = f"Merge of {merged.name} (#{merged.pk}) into {kept.name} (#{kept.pk}): {reason}"
    moved: dict[str, Any] = {"white": [], "black": [], "base_corrections": [], "identity": {}}
    for game in games:
        side = "white" if game.white_id == merged.pk else "black"
        setattr(game, side, kept)
        moved[side].append(game.pk)
    for correction in corrections:
        correction.player = kept
        moved["base_corrections"].append(correction.pk)
    _write_moves(games, corrections, user=user, reason=said)
    moved["identity"] = _take_identity(kept, merged)
    merged.merged_into = kept
    _save(merged, reason=said, user=user)
    _save(kept, reason=said, user=user)
    record = PlayerMerge.objects.create(
        kept=kept, merged=merged, reason=reason, user=user, from_period=start, moved=moved
    )
    lists = _lists_from(games, corrections)
    revisions = _rate_again(lists, start, {kept.pk, merged.pk}, reason=said, user=user)
    return MergeOutcome(record, len(games), len(corrections), moved["identity"], start, revisions)


def unmerge(*, merged: Player, reason: str, user: Any, now: datetime | None) -> MergeOutcome:
    """Undo the merge of ``merged`` (locked): what moved goes back, as it was before it."""
    record = (
        PlayerMerge.objects.active().select_for_update(of=("self",)).filter(merged=merged).first()
    )
    if record is None:
        raise _conflict(
            "other",
            gettext("%(player)s is not merged into anyone; nothing to undo.") % {"player": merged},
        )
    kept = Player.objects.get(pk=record.kept_id)  # locked with it (``lock_merged``)
    if kept.merged_into_id is not None:
        raise _conflict(
            "other",
            gettext("%(player)s was merged into player #%(id)s since; unmerge %(player)s first.")
            % {"player": kept, "id": kept.merged_into_id},
        )
    moved = record.moved
    games = list(
        Game.objects.select_for_update(of=("self",))
        .filter(
            Q(pk__in=moved.get("white", []), white=kept)
            | Q(pk__in=moved.get("black", []), black=kept)
        )
        .select_related("period")
        .order_by("date", "pk")
    )
    corrections = list(
        BaseCorrection.objects.select_for_update(of=("self",))
        .filter(pk__in=moved.get("base_corrections", []), player=kept)
        .select_related("period")
    )
    start = _earliest(merged, [g.period for g in games] + [c.period for c in corrections])
    _check_window(start, user=user, now=now)
    said = f"Unmerge of {merged.name} (#{merged.pk}) from {kept.name} (#{kept.pk})"
    said += f": {reason}" if reason else ""
    white = set(moved.get("white", []))
    for game in games:
        setattr(game, "white" if game.pk in white else "black", merged)
    for correction in corrections:
        correction.player = merged
    _write_moves(games, corrections, user=user, reason=said)
    given_back = _give_back_identity(kept, merged, record.identity_taken())
    merged.merged_into = None
    _save(kept, reason=said, user=user)
    _save(merged, reason=said, user=user)
    record.undone_at, record.undone_by, record.undo_reason = timezone.now(), user, reason
    record.save(update_fields=["undone_at", "undone_by", "undo_reason"])
    lists = _lists_from(games, corrections)
    revisions = _rate_again(lists, start, {kept.pk, merged.pk}, reason=said, user=user)
    return MergeOutcome(record, len(games), len(corrections), given_back, start, revisions)


# --- the checks ---------------------------------------------------------------------------------


def _conflict(field: str, message: str) -> ValidationError:
    """A refusal for what is recorded, not for the request (the API answers 409)."""
    return ValidationError({field: ValidationError(message, code=CONFLICT)})


def _check_not_merged(kept: Player, merged: Player) -> None:
    if merged.merged_into_id is not None:
        raise _conflict(
            "other",
            gettext("%(player)s was merged into player #%(id)s already.")
            % {"player": merged, "id": merged.merged_into_id},
        )
    if kept.merged_into_id is not None:
        raise _conflict(
            "keep",
            gettext("%(player)s was merged into player #%(id)s; merge into that player instead.")
            % {"player": kept, "id": kept.merged_into_id},
        )


def _check_games(kept: Player, merged: Player, games: list[Game]) -> None:
    """Refuse a merge that makes the kept player play themselves, or twice in one round."""
    for game in games:
        if {game.white_id, game.black_id} == {kept.pk, merged.pk}:
            raise _conflict(
                "other",
                gettext(
                    "%(merged)s played %(kept)s (game #%(game)s on %(date)s); merged, a player "
                    "would play themselves."
                )
                % {"merged": merged, "kept": kept, "game": game.pk, "date": game.date},
            )
    rounds = {(g.date, g.event, g.round): g for g in games if g.round}
    if not rounds:
        return
    theirs = (
        Game.objects.filter(Q(white=kept) | Q(black=kept), date__in={k[0] for k in rounds})
        .exclude(round="")
        .order_by("date", "pk")
        .values_list("pk", "date", "event", "round")
    )
    for pk, day, event, round_ in theirs:
        other = rounds.get((day, event, round_))
        if other is not None:
            raise _conflict(
                "other",
                gettext(
                    "Round %(round)s of %(event)s on %(date)s: %(kept)s played game #%(game)s "
                    "and %(merged)s game #%(other)s; merged, a player would play twice in one "
                    "round."
                )
                % {
                    "round": round_,
                    "event": event or gettext("the event"),
                    "date": day,
                    "kept": kept,
                    "game": pk,
                    "merged": merged,
                    "other": other.pk,
                },
            )


def _check_corrections(kept: Player, merged: Player, corrections: list[BaseCorrection]) -> None:
    wanted = {(c.rating_list, c.period_id): c for c in corrections}
    if not wanted:
        return
    theirs = BaseCorrection.objects.filter(player=kept, period_id__in={k[1] for k in wanted})
    for own in theirs.select_related("period"):
        other = wanted.get((own.rating_list, own.period_id))
        if other is not None:
            raise _conflict(
                "other",
                gettext(
                    "Both %(kept)s and %(merged)s have a base correction of the %(list)s list "
                    "in %(period)s (#%(own)s and #%(other)s); delete one first."
                )
                % {
                    "kept": kept,
                    "merged": merged,
                    "list": own.rating_list,
                    "period": own.period.label,
                    "own": own.pk,
                    "other": other.pk,
                },
            )


def _check_fide_ids(kept: Player, merged: Player) -> None:
    if kept.fide_id and merged.fide_id and kept.fide_id != merged.fide_id:
        raise _conflict(
            "other",
            gettext(
                "%(kept)s and %(merged)s have different FIDE ids (%(kept_id)s and "
                "%(merged_id)s): FIDE lists them as two people."
            )
            % {
                "kept": kept.name,
                "merged": merged.name,
                "kept_id": kept.fide_id,
                "merged_id": merged.fide_id,
            },
        )


def _check_window(start: RatingPeriod | None, *, user: Any, now: datetime | None) -> None:
    """A change to a closed list beyond its correction window needs what reopening needs."""
    if start is None:
        return
    for period in _closed_from(start):
        try:
            correction_window.check_reopen(period, user=user, now=now)
        except ReopenRefused as error:
            raise ReopenRefused(
                gettext("It changes the published list of %(period)s.") % {"period": period.label}
                + " "
                + error.messages[0]
            ) from error


# --- the writes ---------------------------------------------------------------------------------


def _write_moves(
    games: list[Game], corrections: list[BaseCorrection], *, user: Any, reason: str
) -> None:
    """Save the moved sides and corrections in bulk, each with its history version."""
    short = _short(reason)
    if games:
        bulk_update_with_history(
            games, Game, ["white", "black"], default_user=user, default_change_reason=short
        )
    if corrections:
        bulk_update_with_history(
            corrections, BaseCorrection, ["player"], default_user=user, default_change_reason=short
        )


def _take_identity(kept: Player, merged: Player) -> dict[str, Any]:
    """Give the kept player the merged one's identity fields where theirs are blank."""
    taken = {}
    for name in TAKEN_IDENTITY:
        theirs = getattr(merged, name)
        if theirs not in (None, "") and getattr(kept, name) in (None, ""):
            taken[name] = theirs
            setattr(kept, name, theirs)
    if "fide_id" in taken:  # unique: the merged record lets it go first
        merged.fide_id = None
        merged.save(update_fields=["fide_id"])
    return taken


def _give_back_identity(kept: Player, merged: Player, taken: dict[str, Any]) -> dict[str, Any]:
    """Put back what the kept player took, where they still hold it."""
    given = {}
    for name, value in taken.items():
        if getattr(kept, name) == value:
            setattr(kept, name, None if name == "fide_id" else "")
            setattr(merged, name, value)
            given[name] = value
    if "fide_id" in given:  # unique: the kept player lets it go first
        kept.save(update_fields=["fide_id"])
    return given


def _save(player: Player, *, reason: str, user: Any) -> None:
    player._change_reason = _short(reason)  # type: ignore[attr-defined]  # simple-history's
    player.full_clean()
    player.save()


def _short(reason: str) -> str:
    return reason if len(reason) <= _HISTORY_REASON else reason[: _HISTORY_REASON - 1] + "…"


# --- rating again and publishing ----------------------------------------------------------------


def _earliest(merged: Player, periods: Iterable[RatingPeriod]) -> RatingPeriod | None:
    """The earliest period changed: of a game or correction moved, or of a published list
    that names the merged player (their line goes, or comes back)."""
    found = list(periods)
    listed = (
        RatingPeriod.objects.filter(publications__lines__player=merged).order_by("start").first()
    )
    if listed is not None:
        found.append(listed)
    return min(found, key=lambda p: p.start) if found else None


def _closed_from(start: RatingPeriod) -> list[RatingPeriod]:
    """The closed periods from ``start`` on, up to the first open one."""
    found = []
    for period in RatingPeriod.objects.filter(start__gte=start.start).order_by("start"):
        if not period.is_closed:
            break
        found.append(period)
    return found


def _lists_from(games: list[Game], corrections: list[BaseCorrection]) -> dict[str, date]:
    """Each list the moved records are on, with the start of the earliest period on it."""
    lists: dict[str, date] = {}
    for rating_list, period in [(g.rating_list, g.period) for g in games] + [
        (c.rating_list, c.period) for c in corrections
    ]:
        if rating_list not in lists or period.start < lists[rating_list]:
            lists[rating_list] = period.start
    return lists


def _rate_again(
    lists: dict[str, date],
    start: RatingPeriod | None,
    players: set[int],
    *,
    reason: str,
    user: Any,
) -> list[Publication]:
    """Request the rating runs; when a closed list changes, execute them now and publish the
    revisions (the merge as their reason)."""
    periods = {p.start: p for p in RatingPeriod.objects.filter(start__in=lists.values())}
    for rating_list, first in sorted(lists.items()):
        runs.request_recompute(
            rating_list=rating_list,
            period=periods[first],
            players=players,
            reason=reason[: runs.REASON_LENGTH],
            user=user,
        )
    data_version.bump_on_commit()  # a merged record leaves the reads even with no game moved
    if start is None or not _closed_from(start):
        return []
    runs.execute_pending(wait=True)
    pending = RatingRun.objects.filter(status__in=(RunStatus.QUEUED, RunStatus.RUNNING)).first()
    if pending is not None:
        raise ValidationError(
            gettext(
                "The ratings are still being computed (rating run #%(run)s); try again once it "
                "has finished, so that the revised lists are published whole."
            )
            % {"run": pending.pk}
        )
    return publication.revise_from(start, reason=reason, user=user)
