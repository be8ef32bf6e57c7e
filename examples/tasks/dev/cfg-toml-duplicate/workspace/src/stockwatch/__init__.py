"""Alerts when warehouse stock runs low."""

__version__ = "0.4.1"
