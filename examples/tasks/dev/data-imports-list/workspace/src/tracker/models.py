"""The data model: projects and time entries."""

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Optional


@dataclass
class Project:
    name: str
    rate: Decimal = Decimal("0")
    tags: list = field(default_factory=list)


@dataclass
class Entry:
    project: Project
    start: dt.datetime
    end: Optional[dt.datetime] = None

    def hours(self):
        if self.end is None:
            return 0.0
        return (self.end - self.start).total_seconds() / 3600
