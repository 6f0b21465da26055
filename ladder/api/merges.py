"""The API's doors to merges: POST ``players/{id}/merge/`` and ``players/{id}/unmerge/``
(``actions.merge_players`` / ``unmerge_players``). What a merged player's id answers is
``ladder.api.merged_ids``."""

from __future__ import annotations

from http import HTTPStatus

from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from ladder.api.schema import distinct, errors
from ladder.api.views import ApiMixin
from ladder.records import Player
from ladder.records.text import refuse_control_characters_but_lines
from ladder.writes import actions
from ladder.writes.merges import MergeOutcome


class MergeRequestSerializer(serializers.Serializer):
    # A player no other example names: a fuzzer that sends the example with a new player's id
    # merges them, and every other example's players stay unmerged.
    field_examples = {"other": 5, "reason": "Entered twice, with and without the FIDE id."}

    # An id a BigAutoField can hold (a larger one is no player, and SQLite refuses it: a 500).
    other = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, help_text="The player merged into this one."
    )
    reason = serializers.CharField(
        max_length=2000,
        validators=[refuse_control_characters_but_lines],  # as merges.clean_reason refuses
        help_text="Why; recorded, and the reason of the revisions it publishes.",
    )


class UnmergeRequestSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=2000,
        required=False,
        allow_blank=True,
        validators=[refuse_control_characters_but_lines],
        help_text="Why (recorded).",
    )


class RevisionSerializer(serializers.Serializer):
    period = serializers.CharField(source="period.label")
    list = serializers.CharField(source="rating_list")
    revision = serializers.IntegerField()


class MergeSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="record.pk", help_text="The merge's record.")
    kept = serializers.IntegerField(source="record.kept_id")
    merged = serializers.IntegerField(source="record.merged_id")
    reason = serializers.CharField(source="record.reason")
    at = serializers.DateTimeField(source="record.at")
    undone_at = serializers.DateTimeField(source="record.undone_at", allow_null=True)
    games = serializers.IntegerField(help_text="Games moved (back, for an unmerge).")
    base_corrections = serializers.IntegerField()
    identity = serializers.DictField(help_text="Identity fields the kept player took (or gave "
                                     "back): FIDE id, federation, title, sex.")  # fmt: skip
    from_period = serializers.CharField(
        source="from_period.label", allow_null=True, help_text="Rated again from this period."
    )
    revisions = RevisionSerializer(many=True, help_text="The published lists revised.")
    message = serializers.CharField(source="describe")


class _PlayerAction(ApiMixin, GenericAPIView):
    """A write on one player: needs ``ladder.change_player``."""

    queryset = Player.objects.all()
    action = "merge"
    action_permissions = {"merge": ["ladder.change_player"]}

    def _player(self, pk: int) -> Player:
        player = Player.objects.filter(pk=pk).first()
        if player is None:
            raise Http404(gettext("There is no player #%(id)s.") % {"id": pk})
        return player

    def _answer(self, outcome: MergeOutcome) -> Response:
        return Response(MergeSerializer(outcome).data, status=HTTPStatus.OK)


class MergeView(_PlayerAction):
    serializer_class = MergeRequestSerializer

    @extend_schema(
        summary="Merge another player into this one",
        description="Needs `ladder.change_player`. Every game and base correction of `other` "
        "becomes this player's; blank FIDE id, federation, title and sex are taken from "
        "`other`. The ratings are rated again from the earliest period it changes; each closed "
        "list it changes gets a revision with `reason`. A merge that makes a player play "
        "themselves or twice in a round, of two players with different FIDE ids, or of a "
        "player merged already conflicts with what is recorded (409, by field: `other`); a "
        "player merged with themselves, an unknown `other` or no `reason` is a 400; a closed list "
        "beyond its correction window needs `ladder.reopen_after_window` (403). Afterwards "
        "`other`'s id answers 301 (reads) or 410 (writes) naming this player.",
        request=MergeRequestSerializer,
        responses={200: MergeSerializer, **errors(400, 401, 403, 404, 409)},
        extensions=distinct(("path.id", "body.other")),
    )
    def post(self, request: Request, id: int) -> Response:
        kept = self._player(id)
        data = MergeRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        outcome = actions.merge_players(
            keep=kept.pk,
            other=data.validated_data["other"],
            reason=data.validated_data["reason"],
            user=request.user,
        )
        return self._answer(outcome)


class UnmergeView(_PlayerAction):
    serializer_class = UnmergeRequestSerializer

    @extend_schema(
        summary="Undo the merge of this player",
        description="Needs `ladder.change_player`. `id` is the merged player. What the merge "
        "moved goes back, both are rated again, and each closed list it changes gets a "
        "revision back: the ratings and lists are as if the merge had never been made. 409 "
        "(`other`) when the player is not merged, or was merged into one merged since.",
        request=UnmergeRequestSerializer,
        responses={200: MergeSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, id: int) -> Response:
        merged = self._player(id)
        data = UnmergeRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        outcome = actions.unmerge_players(
            other=merged.pk, reason=data.validated_data.get("reason", ""), user=request.user
        )
        return self._answer(outcome)
