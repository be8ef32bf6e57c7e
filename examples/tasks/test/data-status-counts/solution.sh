awk '{print $9}' access.log | sort -n | uniq -c | awk '{print $2, $1}' >status_counts.txt
