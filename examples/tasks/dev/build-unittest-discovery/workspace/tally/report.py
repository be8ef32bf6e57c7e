"""The most frequent words and their table."""

from collections import Counter


def top(words, n):
    """The `n` most frequent words with their counts, ties in alphabetical order."""
    counts = Counter(words)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]


def format_counts(pairs):
    """One line per word: the count right-aligned, then the word."""
    if not pairs:
        return ""
    width = len(str(max(count for _, count in pairs)))
    return "\n".join(f"{count:>{width}} {word}" for word, count in pairs)
