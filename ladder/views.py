"""HTML pages for players."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404

from .models import Player, RatingPeriod


def standings(request):
    players = Player.objects.rated().standings()[:50]
    return HttpResponse("<br>".join(f"{p.name} {p.rating}" for p in players))


def player(request, pk: int):
    return HttpResponse(get_object_or_404(Player, pk=pk).name)


def period(request, label: str):
    return HttpResponse(get_object_or_404(RatingPeriod, label=label).label)
