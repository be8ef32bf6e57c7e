"""Reading notes from disk."""


def load_notes(path):
    # TODO: handle a missing file
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]
