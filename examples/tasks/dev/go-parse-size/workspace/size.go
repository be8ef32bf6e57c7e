// Package size parses human-readable sizes such as "10KB" or "3 MB".
package size

import (
	"fmt"
	"strconv"
	"strings"
)

var units = []struct {
	suffix string
	factor int64
}{
	{"B", 1},
	{"KB", 1 << 10},
	{"MB", 1 << 20},
	{"GB", 1 << 30},
}

// Parse returns the number of bytes in s. A number without a unit is bytes.
func Parse(s string) (int64, error) {
	text := strings.ToUpper(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range units {
		if strings.HasSuffix(text, u.suffix) {
			text = strings.TrimSpace(strings.TrimSuffix(text, u.suffix))
			factor = u.factor
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return n * factor, nil
}
