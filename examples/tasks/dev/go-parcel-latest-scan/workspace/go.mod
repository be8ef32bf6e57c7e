module x

go 1.21
