// Command x prints where each parcel was scanned last, from a CSV of scans
// (scans.csv, or the file given as the first argument) with the columns
// parcel, time ("2006-01-02 15:04") and place. The scans come from several
// depots and are not always in time order.
package main

import (
	"encoding/csv"
	"fmt"
	"log"
	"os"
	"sort"
)

type scan struct {
	Parcel string
	Time   string // "YYYY-MM-DD HH:MM" sorts like the time it stands for
	Place  string
}

func readScans(path string) ([]scan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	var scans []scan
	for _, r := range records[1:] {
		scans = append(scans, scan{Parcel: r[0], Time: r[1], Place: r[2]})
	}
	return scans, nil
}

func main() {
	path := "scans.csv"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	scans, err := readScans(path)
	if err != nil {
		log.Fatal(err)
	}
	latest := map[string]*scan{}
	for _, s := range scans {
		if cur, ok := latest[s.Parcel]; !ok || s.Time > cur.Time {
			latest[s.Parcel] = &s
		}
	}
	parcels := make([]string, 0, len(latest))
	for p := range latest {
		parcels = append(parcels, p)
	}
	sort.Strings(parcels)
	for _, p := range parcels {
		s := latest[p]
		fmt.Printf("%-8s %s  %s\n", p, s.Time, s.Place)
	}
}
