#ifndef OPS_H
#define OPS_H

/* Applies the operation named `op` (add, sub, mul, div) to a and b.
 * Returns 0 on success, -1 for an unknown operation or a division by zero. */
int apply(const char *op, long a, long b, long *result);

#endif
