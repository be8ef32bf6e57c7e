# An arrival earlier than the departure is on the next day: wrap around midnight.
sed -i 's/    return minutes(arrives) - minutes(departs)$/    return (minutes(arrives) - minutes(departs)) % (24 * 60)/' journeys.py
grep -q '% (24 \* 60)' journeys.py
