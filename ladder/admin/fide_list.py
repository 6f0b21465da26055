"""FIDE's monthly list in the admin: upload the file as FIDE publishes it, see every change.

One step: "Preview" imports it as a dry run (the report of every change, nothing kept),
"Import" for real. The upload is read from Django's temporary file a line at a time, whatever
its size (the whole combined list is 317 MB, 45 MB zipped)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.template.response import TemplateResponse
from django.utils.translation import gettext, gettext_lazy

from ladder.admin.runs import report_run
from ladder.exceptions import ImportFailed
from ladder.files import fide_list
from ladder.writes import actions


class FideListForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("File"),
        help_text=gettext_lazy(
            "As FIDE publishes it: players_list.zip (all three lists), standard_rating_list.zip "
            "(or rapid, blitz), players_list_xml.zip; zipped or not."
        ),
    )
    month = forms.CharField(
        required=False,
        max_length=7,
        label=gettext_lazy("Month"),
        help_text=gettext_lazy(
            "YYYY-MM; blank: the month the file's name or header gives, else this month."
        ),
    )
    federation = forms.CharField(
        required=False,
        max_length=3,
        label=gettext_lazy("Federation"),
        help_text=gettext_lazy(
            "Add the players of this federation (e.g. NOR) not in the club yet."
        ),
    )
    ids = forms.CharField(
        required=False,
        label=gettext_lazy("FIDE ids"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy(
            "Add these players (FIDE ids, separated by spaces, commas or lines)."
        ),
    )
    rating_list = forms.ChoiceField(
        required=False,
        label=gettext_lazy("List"),
        choices=[
            ("", gettext_lazy("the file's name says")),
            ("standard", gettext_lazy("standard")),
            ("rapid", gettext_lazy("rapid")),
            ("blitz", gettext_lazy("blitz")),
        ],
        help_text=gettext_lazy("For a one-list file whose name does not say which list it is."),
    )

    def clean_month(self) -> str:
        month = self.cleaned_data["month"].strip()
        if month:
            try:
                fide_list.month_of(month)
            except ValueError as error:
                raise ValidationError(str(error)) from error
        return month

    def clean_federation(self) -> str:
        federation = self.cleaned_data["federation"].strip().upper()
        if federation and not (len(federation) == 3 and federation.isalpha()):
            raise ValidationError(
                gettext("'%(federation)s' is not a FIDE code (three letters).")
                % {"federation": federation}
            )
        return federation

    def clean_ids(self) -> list[int]:
        found = []
        for text in self.cleaned_data["ids"].replace(",", " ").split():
            if not (text.isdigit() and text.isascii()) or int(text) == 0:
                raise ValidationError(gettext("'%(text)s' is not a FIDE id.") % {"text": text})
            found.append(int(text))
        return found


def import_fide_list_view(request: Any, model_admin: Any) -> Any:
    """Import FIDE's list (a dry run with "Preview"); show the report or the problems."""
    if not (
        request.user.has_perm("ladder.change_player") and request.user.has_perm("ladder.add_player")
    ):
        raise PermissionDenied
    form = FideListForm(request.POST or None, request.FILES or None)
    report, problems = None, []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        upload = data["file"]
        dry_run = "_import" not in request.POST
        try:
            with fide_list.open_list(upload, upload.name or "", data["rating_list"]) as listed:
                month = fide_list.choose_month(data["month"], listed)
                report = actions.import_fide_list(
                    rows=listed.rows,
                    month=month,
                    columns=listed.columns,
                    federation=data["federation"],
                    ids=data["ids"],
                    user=request.user,
                    dry_run=dry_run,
                )
        except ImportFailed as error:
            problems = [str(p) for p in error.errors] or [str(error)]
        except ValueError as error:
            form.add_error("month", str(error))
        except ValidationError as error:
            problems = error.messages
        else:
            if not dry_run:
                report_run(model_admin, request, saved=report.lines()[0], level=messages.SUCCESS)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": gettext("Import FIDE's rating list"),
        "form": form,
        "report": report,
        "problems": problems,
    }
    return TemplateResponse(request, "admin/ladder/player/import_fide_list.html", context)
