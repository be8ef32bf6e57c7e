awk '$3 == "ERROR" { print $1, substr($2, 1, 2) ":00" }' app.log | uniq -c | awk '{ print $2, $3, $1 }' >errors_by_hour.txt
