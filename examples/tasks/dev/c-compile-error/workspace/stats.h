#ifndef STATS_H
#define STATS_H

double mean(const int *values, int count);
int max_value(const int *values, int count);

#endif
