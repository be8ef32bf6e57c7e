// Command x prints a receipt for the shopping cart in cart.csv (or the CSV
// file given as the first argument).
package main

import (
	"encoding/csv"
	"fmt"
	"log"
	"os"
	"strconv"
)

type line struct {
	item      string
	qty       int
	unitCents int
}

func readCart(path string) ([]line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	var cart []line
	for _, r := range records[1:] {
		qty, err := strconv.Atoi(r[1])
		if err != nil {
			return nil, fmt.Errorf("bad quantity %q", r[1])
		}
		cents, err := strconv.Atoi(r[2])
		if err != nil {
			return nil, fmt.Errorf("bad price %q", r[2])
		}
		cart = append(cart, line{r[0], qty, cents})
	}
	return cart, nil
}

// money formats an amount of cents as dollars, e.g. 1250 -> "12.50".
func money(cents int) string {
	return fmt.Sprintf("%d.%d", cents/100, cents%100)
}

func main() {
	path := "cart.csv"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	cart, err := readCart(path)
	if err != nil {
		log.Fatal(err)
	}
	total := 0
	for _, l := range cart {
		amount := l.qty * l.unitCents
		total += amount
		fmt.Printf("%s: %d x %s = %s\n", l.item, l.qty, money(l.unitCents), money(amount))
	}
	fmt.Printf("total: %s\n", money(total))
}
