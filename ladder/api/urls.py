"""REST API v1 routes (see ladder/api/views.py)."""

app_name = "api"
urlpatterns: list = []
