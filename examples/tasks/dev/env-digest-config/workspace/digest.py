"""Daily digest of the shipper's logs: how many lines of each level at or
above the configured minimum, over all the *.log files of the log directory.

Settings come from digest.ini next to this script (see digest.ini.example).
"""

import configparser
import pathlib
import sys
from collections import Counter

LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
HERE = pathlib.Path(__file__).resolve().parent


def main():
    config = configparser.ConfigParser()
    config.read(HERE / "digest.ini")
    log_dir = HERE / config["paths"]["log_dir"]
    output = HERE / config["paths"]["output"]
    min_level = config["digest"]["min_level"].upper()
    if not log_dir.is_dir():
        sys.exit(f"digest: log directory {log_dir} does not exist")

    wanted = LEVELS[LEVELS.index(min_level):]
    files = sorted(log_dir.glob("*.log"))
    counts = Counter()
    for path in files:
        for line in path.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 3 and fields[2] in wanted:
                counts[fields[2]] += 1

    lines = [f"files: {len(files)}"] + [f"{level}: {counts[level]}" for level in wanted]
    output.write_text("\n".join(lines) + "\n")
    print(f"digest written to {output}")


if __name__ == "__main__":
    main()
