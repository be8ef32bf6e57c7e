import unittest

from client import request_options
from worker import give_up_at, next_poll


class TimeoutTest(unittest.TestCase):
    def test_request_timeout_in_seconds(self):
        options = request_options("/jobs")
        self.assertEqual(options["timeout"], 2.5)
        self.assertEqual(options["retries"], 2)

    def test_worker_gives_up_after_timeout(self):
        self.assertEqual(give_up_at(1000.0), 1002.5)

    def test_next_poll(self):
        self.assertEqual(next_poll(1000.0), 1005.0)


if __name__ == "__main__":
    unittest.main()
