for f in logs/*.log; do
    echo "$(basename "$f"): $(wc -l <"$f")"
done | LC_ALL=C sort >report.txt
