sed -n 's/^FAILED \([^ ]*\).*/\1/p' ci.log >failed.txt
