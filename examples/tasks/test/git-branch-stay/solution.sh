git switch -q -c fix/empty-input
git commit -q -am 'Handle empty input'
