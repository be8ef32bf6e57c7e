// Command expenses prints the total spent per payee in an expenses CSV
// (date,payee,amount with a header row), largest first, and the grand total.
//
// Usage: go run . [expenses.csv]
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

func main() {
	path := "expenses.csv"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()

	totals := map[string]float64{}
	scanner := bufio.NewScanner(f)
	scanner.Scan() // the header
	for scanner.Scan() {
		fields := strings.Split(scanner.Text(), ",")
		if len(fields) != 3 {
			continue
		}
		amount, err := strconv.ParseFloat(strings.TrimSpace(fields[2]), 64)
		if err != nil {
			continue
		}
		totals[strings.TrimSpace(fields[1])] += amount
	}

	payees := make([]string, 0, len(totals))
	var sum float64
	for payee, total := range totals {
		payees = append(payees, payee)
		sum += total
	}
	sort.Slice(payees, func(i, j int) bool {
		if totals[payees[i]] != totals[payees[j]] {
			return totals[payees[i]] > totals[payees[j]]
		}
		return payees[i] < payees[j]
	})
	for _, payee := range payees {
		fmt.Printf("%-28s %10.2f\n", payee, totals[payee])
	}
	fmt.Printf("%-28s %10.2f\n", "TOTAL", sum)
}
