"""Prints the relay's settings from settings.toml."""

import tomllib

with open("settings.toml", "rb") as f:
    settings = tomllib.load(f)

print(f"{settings['name']} {settings['version']}")
for table in ("server", "limits"):
    for key, value in settings[table].items():
        print(f"{table}.{key} = {value!r}")
