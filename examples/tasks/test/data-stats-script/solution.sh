cat >stats.py <<'EOF'
"""Prints count, min, max and mean of the numbers in a file."""

import sys


def main(path):
    with open(path) as f:
        values = [float(line) for line in f if line.strip() and not line.lstrip().startswith("#")]
    print(f"count: {len(values)}")
    print(f"min: {min(values):.2f}")
    print(f"max: {max(values):.2f}")
    print(f"mean: {sum(values) / len(values):.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
EOF
