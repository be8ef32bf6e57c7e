"""Quiz scores kept in a CSV file."""


def read_scores(path):
    """Read a CSV file whose first line is the header `name,score` and
    return a dict mapping each name to its score as an int."""
    scores = {}
    with open(path) as f:
        for line in f:
            name, score = line.strip().split(",")
            scores[name] = int(score)
    return scores


def winner(path):
    """Return the name with the highest score in the file."""
    scores = read_scores(path)
    return max(scores, key=scores.get)
