package main

import "testing"

func TestTotalValue(t *testing.T) {
	items := []Item{{"a", 1.25, 4}, {"b", 0.10, 3}}
	if got := TotalValue(items); got < 5.2999 || got > 5.3001 {
		t.Errorf("TotalValue = %v, want 5.30", got)
	}
	if got := TotalValue(nil); got != 0 {
		t.Errorf("TotalValue(nil) = %v, want 0", got)
	}
}

func TestLowStock(t *testing.T) {
	got := LowStock([]Item{{"x", 1, 9}, {"b", 1, 2}, {"a", 1, 0}}, 5)
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("LowStock = %v, want [a b]", got)
	}
}
