grep -ohE "https?://[^][[:space:])>\"']+" docs/*.md | sed -E 's/[.,;:]+$//' | LC_ALL=C sort -u >urls.txt
