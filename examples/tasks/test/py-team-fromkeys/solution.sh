sed -i 's/teams = dict.fromkeys(\[team for _, team in people\], \[\])/teams = {team: [] for _, team in people}/' teams.py
grep -q 'teams = {team: \[\] for _, team in people}' teams.py
