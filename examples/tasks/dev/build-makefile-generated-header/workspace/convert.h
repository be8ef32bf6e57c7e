#ifndef CONVERT_H
#define CONVERT_H

/* Degrees Celsius to Fahrenheit and back. */
double c_to_f(double c);
double f_to_c(double f);

#endif
