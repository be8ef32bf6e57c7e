# The cents need a leading zero: 105 is 1.05, not 1.5.
sed -i 's|return fmt.Sprintf("%d.%d", cents/100, cents%100)|return fmt.Sprintf("%d.%02d", cents/100, cents%100)|' main.go
