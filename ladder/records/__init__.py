"""The club's records: players, rating periods, games and what the doors keep.

Ratings are derived from these by the ``ratings`` app; nothing here computes a rating. The
``Player`` fields under "derived" are written only by the rating runs. One module per record;
this face hands their names on."""

from ladder.records.access import ApiToken, IdempotentRequest, ThrottleCount
from ladder.records.bounds import (
    ENTRY_RATING_FLOOR,
    ENTRY_RATING_MESSAGE,
    FIRST_GAME_DATE,
    GAME_DATE_MESSAGE,
    K_ABOVE_MESSAGE,
    K_BELOW_MESSAGE,
    LAST_GAME_DATE,
    MAX_ENTRY_RATED_GAMES,
    MAX_FIDE_ID,
    MAX_K,
    MAX_RATING,
    MIN_BIRTH_YEAR,
    MIN_K,
    MIN_RATING,
    RATING_ABOVE_MESSAGE,
    RATING_BELOW_MESSAGE,
    latest_birth_year,
)
from ladder.records.choices import Result, Sex, Title
from ladder.records.corrections import BaseCorrection
from ladder.records.fide_list import FideListEntry, FideListQuerySet
from ladder.records.games import Game, GameQuerySet
from ladder.records.imports import ImportedFile
from ladder.records.lists import (
    LIST_FIELDS,
    PLAYER_ENTRY_FIELDS,
    ListFields,
    RatingList,
    default_list,
    entry_fields,
    kept_lists,
    parse_list,
)
from ladder.records.merges import NotDuplicate, PlayerMerge
from ladder.records.names import name_key, name_keys
from ladder.records.periods import (
    PeriodLog,
    PeriodStatus,
    RatingPeriod,
    RatingPeriodQuerySet,
    closed_message,
)
from ladder.records.players import ListState, Player, PlayerQuerySet, rated_on
from ladder.records.text import (
    PERIOD_LABEL_VALIDATOR,
    FideIdFormField,
    fide_id_message,
    parse_fide_id,
    read_fide_id,
    refuse_control_characters,
    refuse_control_characters_but_lines,
)
from ladder.records.tournaments import Tournament, TournamentQuerySet
from ladder.records.versions import DataVersion
from ladder.records.webhooks import (
    DeliveryStatus,
    EventType,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)

__all__ = [
    "ApiToken",
    "BaseCorrection",
    "DataVersion",
    "DeliveryStatus",
    "ENTRY_RATING_FLOOR",
    "ENTRY_RATING_MESSAGE",
    "EventType",
    "FideListEntry",
    "FideListQuerySet",
    "FIRST_GAME_DATE",
    "GAME_DATE_MESSAGE",
    "Game",
    "GameQuerySet",
    "IdempotentRequest",
    "ImportedFile",
    "K_ABOVE_MESSAGE",
    "K_BELOW_MESSAGE",
    "LAST_GAME_DATE",
    "LIST_FIELDS",
    "ListFields",
    "ListState",
    "MAX_ENTRY_RATED_GAMES",
    "MAX_FIDE_ID",
    "MAX_K",
    "MAX_RATING",
    "MIN_BIRTH_YEAR",
    "latest_birth_year",
    "MIN_K",
    "MIN_RATING",
    "NotDuplicate",
    "PERIOD_LABEL_VALIDATOR",
    "PLAYER_ENTRY_FIELDS",
    "PeriodLog",
    "PeriodStatus",
    "Player",
    "PlayerMerge",
    "PlayerQuerySet",
    "RATING_ABOVE_MESSAGE",
    "RATING_BELOW_MESSAGE",
    "RatingList",
    "RatingPeriod",
    "RatingPeriodQuerySet",
    "Result",
    "Sex",
    "ThrottleCount",
    "Title",
    "Tournament",
    "TournamentQuerySet",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEvent",
    "closed_message",
    "default_list",
    "entry_fields",
    "kept_lists",
    "name_key",
    "name_keys",
    "FideIdFormField",
    "fide_id_message",
    "parse_fide_id",
    "read_fide_id",
    "parse_list",
    "rated_on",
    "refuse_control_characters",
    "refuse_control_characters_but_lines",
]
