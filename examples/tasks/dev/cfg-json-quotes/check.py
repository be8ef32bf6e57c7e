"""Hidden check of cfg-json-quotes: settings.json is strict JSON with the
values the JS-style file had."""

import json
import sys

EXPECTED = {
    "appName": "Recipe Box",
    "tagline": "Grandma's recipes, online",
    "apiBase": "https://api.recipebox.app/v1",
    "pageSize": 24,
    "theme": {"primary": "#d35400", "accent": "#2c3e50", "dark": False},
    "locales": ["en", "de", "fr"],
    "analytics": {"enabled": True, "sampleRate": 0.25, "trackingId": None},
    "upload": {"maxMb": 8, "types": ["image/jpeg", "image/png"]},
}

try:
    with open("settings.json") as f:
        settings = json.load(f)
except json.JSONDecodeError as e:
    sys.exit(f"settings.json is still not valid JSON: {e}")
if settings != EXPECTED:
    sys.exit(f"settings.json has other values: {settings!r}")
