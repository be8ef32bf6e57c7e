"""Team rosters."""


def group_by_team(people):
    """Take (name, team) pairs and return a dict mapping each team to the
    list of its members' names, in the order they were given."""
    teams = dict.fromkeys([team for _, team in people], [])
    for name, team in people:
        teams[team].append(name)
    return teams


def roster(people):
    """Return one `team: name, name` line per team, teams sorted by name."""
    teams = group_by_team(people)
    return [f"{team}: {', '.join(names)}" for team, names in sorted(teams.items())]
