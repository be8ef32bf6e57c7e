# Multiply in floating point: convert the quantity, and sum into a float64.
sed -i -e 's/^\ttotal := 0$/\ttotal := 0.0/' \
       -e 's/total += it.Price \* it.Qty/total += it.Price * float64(it.Qty)/' inventory.go
