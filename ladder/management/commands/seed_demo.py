"""manage.py seed_demo [--if-empty]: a demo club with six months of rated history.

The demo club keeps FIDE's three lists (FIDE.md 9): each month has four standard rounds, a rapid
evening (15+10) and a blitz night (3+2). Most rated players have rapid and blitz entry data; a
few are unrated on the faster lists, and the newcomers are unrated on every list.

It writes as every door does, through the actions (players, games, closes), and works with
either ``LADDER_RECOMPUTE``: before closing the months it executes the rating runs itself, as a
worker would. This month's games are dated no later than today.
"""

import calendar
import random
from datetime import date

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from ladder.records import LIST_FIELDS, Player, RatingList, RatingPeriod, Result, kept_lists
from ladder.records.translations import Help
from ladder.writes import actions
from ladder.writes.validation import GameEntry
from ratings import runs
from ratings.models import RatingRun
from ratings.rules.fide import add_months

DEMO_USER, DEMO_PASSWORD = "admin", "admin"

# name, FIDE id, birth year, sex, title, entry rating, rated games, peak
PLAYERS = [
    ("Alexandra Kosteniuk-Vale", 4100001, 1984, "F", "GM", 2662, 900, 2701),
    ("Boris Aleksandrov", 4100002, 1971, "M", "IM", 2431, 700, 2488),
    ("Clara Hoffmann", 4100003, 1990, "F", "WGM", 2396, 520, 2412),
    ("Dmitri Petrov", 4100004, 1965, "M", "FM", 2352, 640, 2405),
    ("Elena Rossi", 4100005, 1993, "F", "", 2288, 310, 2301),
    ("Farid Haddad", 4100006, 1988, "M", "CM", 2214, 280, 2240),
    ("Greta Lindqvist", 4100007, 1979, "F", "", 2155, 450, 2190),
    ("Hugo Martin", 4100008, 1999, "M", "", 2097, 160, 2120),
    ("Ines Carvalho", 4100009, 1985, "F", "", 2042, 230, 2060),
    ("Jonas Weber", 4100010, 1975, "M", "", 1988, 510, 2050),
    ("Kenji Sato", 4100011, 1992, "M", "", 1951, 120, 1960),
    ("Lucia Fernandez", 4100012, 2001, "F", "", 1903, 90, 1930),
    ("Marek Novak", 4100013, 1968, "M", "", 1877, 700, 1990),
    ("Nadia Benali", 4100014, 1996, "F", "", 1836, 45, 1850),
    ("Oscar Nilsson", 4100015, 1983, "M", "", 1802, 300, 1880),
    ("Paula Schmidt", 4100016, 1958, "F", "", 1765, 820, 1910),
    ("Quentin Dubois", 4100017, 1991, "M", "", 1731, 25, 1731),
    ("Rosa Jimenez", 4100018, 1987, "F", "", 1694, 140, 1720),
    ("Stefan Horvath", 4100019, 1972, "M", "", 1652, 260, 1700),
    ("Tamara Ivanova", 4100020, 1995, "F", "", 1611, 33, 1640),
    ("Umar Qureshi", 4100021, 1980, "M", "", 1573, 60, 1600),
    ("Vera Koval", 4100022, 1962, "F", "", 1532, 400, 1650),
    ("Willem de Vries", 4100023, 1994, "M", "", 1488, 18, 1500),
    ("Xenia Popova", 4100024, 1989, "F", "", 1446, 52, 1470),
    ("Yusuf Demir", 4100025, 1976, "M", "", 1421, 75, 1480),
    # juniors
    ("Zoe Laurent", 4100026, 2010, "F", "", 1984, 85, 1984),
    ("Aarav Sharma", 4100027, 2011, "M", "", 1862, 64, 1870),
    ("Bea Muller", 4100028, 2012, "F", "", 1720, 40, 1720),
    ("Caio Souza", 4100029, 2013, "M", "", 1605, 22, 1605),
    ("Dana Cohen", 4100030, 2009, "F", "", 2105, 150, 2130),
    ("Emil Berg", 4100031, 2014, "M", "", 1498, 12, 1498),
    # unrated newcomers
    ("Fiona Walsh", None, 1998, "F", "", None, 0, None),
    ("Gustavo Lima", None, 1986, "M", "", None, 0, None),
    ("Hana Kimura", None, 2012, "F", "", None, 0, None),
    ("Igor Sokolov", None, 1970, "M", "", None, 0, None),
    ("Julia Nowak", None, 2008, "F", "", None, 0, None),
    ("Kofi Mensah", None, 2001, "M", "", None, 0, None),
    ("Lena Vogel", None, 2013, "F", "", None, 0, None),
    ("Mateo Garcia", None, 1993, "M", "", None, 0, None),
    # newcomers who joined this month: too few games yet for a first rating on any list
    ("Nora Eriksen", None, 1997, "F", "", None, 0, None),
    ("Pavel Dvorak", None, 2005, "M", "", None, 0, None),
    ("Rhea Kapoor", None, 2011, "F", "", None, 0, None),
]
LATE_NEWCOMERS = {"Nora Eriksen", "Pavel Dvorak", "Rhea Kapoor"}
LATE_ROUNDS = 3  # a late newcomer plays at most this many rounds of an event (fewer than 5)
MONTHS = 6
# Rated (standard) players with no rating yet on the rapid / blitz list: their first rapid or
# blitz rating comes from the demo's games.
UNRATED_RAPID = {"Quentin Dubois", "Willem de Vries", "Caio Souza", "Emil Berg"}
UNRATED_BLITZ = {"Paula Schmidt", "Tamara Ivanova", "Willem de Vries", "Bea Muller"}
# list, time control, event, day of the month, rounds, share of the club that comes
EVENINGS = (
    (RatingList.RAPID, "15+10", "Rapid Evening", 17, 4, 0.6),
    (RatingList.BLITZ, "3+2", "Blitz Night", 26, 5, 0.5),
)


class Command(BaseCommand):
    help = Help(
        gettext_noop(
            "Load a demo club: about 40 players (juniors, unrated newcomers, 2400+ histories, one "
            "2650+) and six monthly periods of standard, rapid and blitz games (on the lists the "
            "club keeps), all closed but the last; and a demo admin."
        )
    )
    last_period: RatingPeriod  # the open month: the only one the late newcomers play in
    today: date

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help=gettext("Do nothing if the club already has players."),
        )
        parser.add_argument(
            "--seed", type=int, default=2026, help=gettext("Random seed (default 2026).")
        )

    def handle(self, *args, **options):
        if Player.objects.exists():
            if options["if_empty"]:
                self.stdout.write(gettext("The club already has players; demo data not loaded."))
                self._login_hint()
                return
            raise CommandError(
                gettext("The club already has players; seed_demo loads an empty club only.")
            )
        first = RatingRun.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        with transaction.atomic():  # the players and games, all or none
            periods = self._seed(random.Random(options["seed"]))
        # Every month is rated before it closes (its list is published whole): execute the
        # runs here, as a worker would in background mode (already done in immediate mode).
        runs.execute_pending(wait=True)
        for period in periods[:-1]:
            actions.close_period(period=period)
        runs.settle()
        done = RatingRun.objects.filter(pk__gt=first, status="done").order_by("pk")
        summary = " ".join(runs.describe(run) for run in done)
        self.stdout.write(
            self.style.SUCCESS(gettext("Demo club loaded. %(summary)s") % {"summary": summary})
        )
        self._login_hint()

    def _seed(self, rng: random.Random) -> list[RatingPeriod]:
        """Add the players and enter the games (creating the months' periods); return them."""
        players = []
        for name, fide_id, born, sex, title, rating, rated_games, peak in PLAYERS:
            player = Player(
                name=name, fide_id=fide_id, birth_year=born, sex=sex, title=title,
                entry_rating=rating, entry_rated_games=rated_games, entry_peak_rating=peak,
                federation=rng.choice(["ENG", "GER", "FRA", "ESP", "NED", "SWE"]),
            )  # fmt: skip
            if rating is not None:
                self._faster_lists(rng, player, rating, rated_games)
            players.append(actions.save_player(player=player))
        kept = kept_lists()
        self.today = timezone.localdate()
        first_month = add_months(self.today.replace(day=1), -(MONTHS - 1))
        months = [self._month_of(add_months(first_month, i)) for i in range(MONTHS)]
        self.last_period = months[-1]
        games: list[GameEntry] = []
        for number, month in enumerate(months, start=1):
            if RatingList.STANDARD in kept:
                games += self._month(rng, players, month, number)
            for rating_list, control, event, day, rounds, share in EVENINGS:
                if rating_list in kept:
                    games += self._evening(rng, players, month, rating_list, control, event,
                                           day=day, rounds=rounds, share=share)  # fmt: skip
        actions.enter_games(games=games, reason="Demo club loaded")
        user = get_user_model()
        if not user.objects.filter(username=DEMO_USER).exists():
            user.objects.create_superuser(DEMO_USER, "admin@example.org", DEMO_PASSWORD)
        return [RatingPeriod.objects.get(start=month.start) for month in months]

    def _faster_lists(self, rng, player: Player, rating: int, rated_games: int) -> None:
        """Rapid and blitz entry data near the standard rating (unless unrated on that list)."""
        for rating_list, unrated, spread in (
            (RatingList.RAPID, UNRATED_RAPID, (-120, 60)),
            (RatingList.BLITZ, UNRATED_BLITZ, (-150, 80)),
        ):
            if player.name in unrated:
                continue
            fields = LIST_FIELDS[rating_list]
            own = max(1400, rating + rng.randint(*spread))
            setattr(player, fields.entry_rating, own)
            setattr(player, fields.entry_rated_games, max(5, rated_games // rng.randint(2, 4)))
            setattr(player, fields.entry_peak_rating, own + rng.randint(0, 60))

    def _plays(self, player: Player, period: RatingPeriod, round_no: int) -> bool:
        """Everyone may play, but the late newcomers: a few rounds of the last month only."""
        if player.name not in LATE_NEWCOMERS:
            return True
        return period.start == self.last_period.start and round_no <= LATE_ROUNDS

    def _evening(self, rng, players, period, rating_list, control, event, *, day, rounds, share):
        """A rapid or blitz evening: several rounds on one day, rated on that list."""
        day_of = self._day(period, day)
        rating = LIST_FIELDS[rating_list].entry_rating
        club = [p for p in players if rng.random() < share]
        games = []
        for round_no in range(1, rounds + 1):
            present = [p for p in club if self._plays(p, period, round_no)]
            rng.shuffle(present)
            present.sort(key=lambda p: (getattr(p, rating) or 1500) + rng.randint(-300, 300))
            for white, black in zip(present[::2], present[1::2], strict=False):
                if rng.random() < 0.5:
                    white, black = black, white
                result = self._result(rng, white, black, rating)
                games.append(
                    GameEntry(date=day_of, white=white, black=black, result=result,
                              event=f"{event} {period.label}", round=str(round_no),
                              rating_list=rating_list, time_control=control)
                )  # fmt: skip
        return games

    def _month_of(self, start: date) -> RatingPeriod:
        """The month as its period will be (unsaved: entering its games creates it)."""
        end = start.replace(day=calendar.monthrange(start.year, start.month)[1])
        return RatingPeriod(label=start.strftime("%Y-%m"), start=start, end=end)

    def _day(self, period: RatingPeriod, day: int) -> date:
        """The day of the month, but never after the month's end or today (a game is played
        before it is entered)."""
        return min(period.start.replace(day=day), period.end, self.today)

    def _month(self, rng, players, period, number) -> list[GameEntry]:
        """Four rounds of a monthly club event; a few forfeits; newcomers meet rated players."""
        event = f"Club Championship {period.label}" if number % 2 else ""
        games = []
        for round_no in range(1, 5):
            day = self._day(period, 3 + 7 * (round_no - 1))
            present = [
                p for p in players if rng.random() < 0.85 and self._plays(p, period, round_no)
            ]
            rng.shuffle(present)
            present.sort(key=lambda p: (p.entry_rating or 1600) + rng.randint(-250, 250))
            for white, black in zip(present[::2], present[1::2], strict=False):
                if rng.random() < 0.5:
                    white, black = black, white
                # Rounds are numbered even without an event: early in the month they may all
                # be dated today, and two games of a pair on one day must differ by round.
                games.append(
                    GameEntry(date=day, white=white, black=black,
                              result=self._result(rng, white, black), event=event,
                              round=str(round_no), rating_list=RatingList.STANDARD,
                              time_control="90+30")
                )  # fmt: skip
        return games

    def _result(self, rng, white, black, rating: str = "entry_rating") -> str:
        if rng.random() < 0.02:
            return rng.choice([Result.WHITE_FORFEIT_WIN, Result.BLACK_FORFEIT_WIN])
        diff = (getattr(white, rating) or 1650) - (getattr(black, rating) or 1650) + 30
        white_chance = 1 / (1 + 10 ** (-diff / 400))
        roll = rng.random()
        if roll < white_chance - 0.15:
            return Result.WHITE_WIN
        if roll < white_chance + 0.15:
            return Result.DRAW
        return Result.BLACK_WIN

    def _login_hint(self):
        self.stdout.write(
            f"Admin: http://127.0.0.1:8000/admin/  user '{DEMO_USER}', password '{DEMO_PASSWORD}'"
        )
