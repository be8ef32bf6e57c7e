module expenses

go 1.19
