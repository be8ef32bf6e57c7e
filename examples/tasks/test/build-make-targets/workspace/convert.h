#ifndef CONVERT_H
#define CONVERT_H

double c_to_f(double celsius);
double f_to_c(double fahrenheit);

#endif
