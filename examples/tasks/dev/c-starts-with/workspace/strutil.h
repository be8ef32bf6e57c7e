#ifndef STRUTIL_H
#define STRUTIL_H

/* 1 if s begins with prefix, else 0. */
int starts_with(const char *s, const char *prefix);

/* 1 if s ends with suffix, else 0. */
int ends_with(const char *s, const char *suffix);

/* How many times c occurs in s. */
int count_char(const char *s, char c);

#endif
