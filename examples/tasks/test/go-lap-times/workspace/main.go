// Command x summarises lap times: one Go duration per line of laps.txt (or
// of the file given as the first argument).
package main

import (
	"bufio"
	"fmt"
	"log"
	"os"
	"strings"
	"time"
)

func clock(d time.Duration) string {
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

func main() {
	path := "laps.txt"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	var laps []time.Duration
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		text := strings.TrimSpace(scanner.Text())
		if text == "" {
			continue
		}
		d, err := time.ParseDuration(text)
		if err != nil {
			log.Fatalf("bad lap time %q: %v", text, err)
		}
		laps = append(laps, d)
	}
	if err := scanner.Err(); err != nil {
		log.Fatal(err)
	}

	var total, best time.Duration
	bestLap := 0
	for i, d := range laps {
		fmt.Printf("lap %d: %s\n", i+1, clock(d))
		total += d
		if d < best {
			best = d
			bestLap = i + 1
		}
	}
	fmt.Printf("total: %s\n", clock(total))
	fmt.Printf("fastest: lap %d (%s)\n", bestLap, clock(best))
}
