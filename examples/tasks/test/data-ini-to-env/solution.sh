python3 - <<'PY'
import configparser

ini = configparser.RawConfigParser()
ini.read("app.ini")
with open("app.env", "w") as out:
    for section in ini.sections():
        for key, value in ini.items(section):
            out.write(f"{section.upper()}_{key.upper()}={value}\n")
PY
