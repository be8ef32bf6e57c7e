/* spread: reads numbers from standard input and prints their count, mean,
 * standard deviation and root mean square. */
#include <math.h>
#include <stdio.h>

int main(void)
{
    double x, sum = 0.0, sum_sq = 0.0;
    long n = 0;
    while (scanf("%lf", &x) == 1) {
        sum += x;
        sum_sq += x * x;
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "spread: no numbers\n");
        return 1;
    }
    double mean = sum / n;
    double variance = sum_sq / n - pow(mean, 2.0);
    printf("count: %ld\n", n);
    printf("mean: %.3f\n", mean);
    printf("stddev: %.3f\n", sqrt(variance > 0 ? variance : 0));
    printf("rms: %.3f\n", sqrt(sum_sq / n));
    return 0;
}
