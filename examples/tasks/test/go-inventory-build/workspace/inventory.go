package main

import "sort"

// Item is one product line in the stock room.
type Item struct {
	Name  string
	Price float64 // per unit
	Qty   int
}

// TotalValue is what the whole stock is worth: price times quantity, summed.
func TotalValue(items []Item) float64 {
	total := 0
	for _, it := range items {
		total += it.Price * it.Qty
	}
	return total
}

// LowStock lists, by name, the items with fewer than threshold units left.
func LowStock(items []Item, threshold int) []string {
	var names []string
	for _, it := range items {
		if it.Qty < threshold {
			names = append(names, it.Name)
		}
	}
	sort.Strings(names)
	return names
}
