# Split the lines with encoding/csv, which understands quoted fields.
python3 - <<'PY'
path = "main.go"
src = open(path).read()
src = src.replace('''import (
	"bufio"
	"fmt"
''', '''import (
	"encoding/csv"
	"fmt"
''')
src = src.replace('''	scanner := bufio.NewScanner(f)
	scanner.Scan() // the header
	for scanner.Scan() {
		fields := strings.Split(scanner.Text(), ",")
		if len(fields) != 3 {
			continue
		}
''', '''	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, fields := range records[1:] {
		if len(fields) != 3 {
			continue
		}
''')
open(path, "w").write(src)
PY
