# &s is the address of the one loop variable (go.mod says go 1.21), so every
# map entry ends up pointing at the last scan: store a copy per scan instead.
sed -i 's|^\tfor _, s := range scans {$|\tfor i := range scans {\n\t\ts := \&scans[i]|; s|\t\t\tlatest\[s.Parcel\] = &s$|\t\t\tlatest[s.Parcel] = s|' main.go
gofmt -l . | grep . && exit 1
grep -q 'latest\[s.Parcel\] = s$' main.go
