#include "convert.h"

double c_to_f(double celsius)
{
    return celsius * 9.0 / 5.0 + 32.0;
}

double f_to_c(double fahrenheit)
{
    return (fahrenheit - 32.0) * 5.0 / 9.0;
}
