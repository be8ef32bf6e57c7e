"""tracker: time tracking for small teams."""

from .models import Entry, Project

__all__ = ["Entry", "Project"]
