"""factory-boy factories for the club's records."""

from datetime import date

import factory

from ladder.records import Game, Player, RatingPeriod, Result


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    name = factory.Sequence(lambda n: f"Player {n:04d}")
    entry_rating = 1800
    entry_rated_games = 50
    birth_year = 1980


class UnratedPlayerFactory(PlayerFactory):
    entry_rating = None
    entry_rated_games = 0


class PeriodFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RatingPeriod
        django_get_or_create = ("label",)

    start = date(2026, 3, 1)
    end = date(2026, 3, 31)
    label = factory.LazyAttribute(lambda p: p.start.strftime("%Y-%m"))


class GameFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Game

    date = date(2026, 3, 10)
    white = factory.SubFactory(PlayerFactory)
    black = factory.SubFactory(PlayerFactory)
    result = Result.WHITE_WIN
