// Command x prints a short stock report.
package main

import (
	"fmt"
	"strings"
)

var stock = []Item{
	{"desk lamp", 24.99, 12},
	{"office chair", 149.50, 3},
	{"notebook", 2.35, 140},
	{"stapler", 7.80, 4},
	{"whiteboard", 89.00, 1},
}

func main() {
	fmt.Printf("items: %d\n", len(stock))
	fmt.Printf("stock value: %.2f\n", TotalValue(stock))
	fmt.Printf("low stock: %s\n", strings.Join(LowStock(stock, 5), ", "))
}
