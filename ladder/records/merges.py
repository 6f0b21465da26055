"""Who is who: a merge of two records of one person, and a pair found not to be one.

A ``PlayerMerge`` records what a merge moved from the merged player to the kept one (each
game's side, each base correction, the identity fields the kept player took), so that an
unmerge puts back exactly that. A ``NotDuplicate`` pair is an answer the duplicate finder
remembers: the two are different people and are not proposed again.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from ladder.records.periods import RatingPeriod
from ladder.records.players import Player
from ladder.records.text import refuse_control_characters_but_lines

# The identity fields a kept player takes from the merged one where their own are blank
# (none of them is entry data: a merge changes no one's entry data).
TAKEN_IDENTITY = ("fide_id", "federation", "title", "sex")


class PlayerMergeQuerySet(models.QuerySet["PlayerMerge"]):
    def active(self) -> PlayerMergeQuerySet:
        """The merges not undone."""
        return self.filter(undone_at__isnull=True)


class PlayerMerge(models.Model):
    """One player's record merged into another's: what moved, why, by whom; and its undoing."""

    kept = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="merges_kept")
    merged = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="merges_undergone")
    reason = models.TextField(validators=[refuse_control_characters_but_lines])
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    at = models.DateTimeField(default=timezone.now)
    from_period = models.ForeignKey(
        RatingPeriod,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The earliest period the merge changed (rated again from it).",
    )
    # {"white": [game ids], "black": [game ids], "base_corrections": [ids],
    #  "identity": {field: value taken}}: what an unmerge moves back.
    moved = models.JSONField(default=dict)
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    undo_reason = models.TextField(blank=True, validators=[refuse_control_characters_but_lines])

    objects = PlayerMergeQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("player merge")
        verbose_name_plural = gettext_lazy("player merges")
        ordering = ["-at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(kept=F("merged")), name="merge_not_self"),
            models.UniqueConstraint(
                fields=["merged"],
                condition=Q(undone_at__isnull=True),
                name="merge_once",
                violation_error_message="This player is merged already.",
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="merge_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.merged} merged into {self.kept}"

    @property
    def games_moved(self) -> int:
        return len(self.moved.get("white", [])) + len(self.moved.get("black", []))

    def identity_taken(self) -> dict[str, Any]:
        return dict(self.moved.get("identity", {}))


class NotDuplicate(models.Model):
    """Two players an administrator said are different people (the lower id first)."""

    first = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    at = models.DateTimeField(default=timezone.now)
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name = gettext_lazy("not a duplicate")
        verbose_name_plural = gettext_lazy("not duplicates")
        constraints = [
            models.CheckConstraint(condition=Q(first__lt=F("second")), name="not_duplicate_order"),
            models.UniqueConstraint(fields=["first", "second"], name="not_duplicate_once"),
        ]

    def __str__(self) -> str:
        return f"{self.first} is not {self.second}"


def kept_for(player: Player) -> int:
    """The id of the player a record's references lead to: its own, or the one it was merged
    into (through a merge of the kept player since). One query a merge followed."""
    seen = {player.pk}
    target = player.merged_into_id
    while target is not None:
        following = Player.objects.filter(pk=target).values_list("merged_into_id", flat=True)
        nxt = following.first()
        if nxt is None or nxt in seen:
            return target
        seen.add(target)
        target = nxt
    return player.pk
