import datetime as dt
import unittest

import pytest

from tracker.models import Entry, Project


class HoursTest(unittest.TestCase):
    def test_hours(self):
        e = Entry(Project("x"), dt.datetime(2024, 1, 1, 9), dt.datetime(2024, 1, 1, 10, 30))
        self.assertEqual(e.hours(), 1.5)
