git commit -q --amend -m 'Fix pagination offset'
