# fgets keeps the newline, so the last field was "present\n": split on it too.
sed -i 's/        char \*status = strtok(NULL, ",");/        char *status = strtok(NULL, ",\\r\\n");/' attendance.c
grep -qF 'strtok(NULL, ",\r\n")' attendance.c
