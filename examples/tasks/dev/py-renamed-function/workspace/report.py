"""One-line summaries of documents."""

from textstats import count_lines, word_count


def summary(name, text):
    return f"{name}: {word_count(text)} words, {count_lines(text)} lines"
