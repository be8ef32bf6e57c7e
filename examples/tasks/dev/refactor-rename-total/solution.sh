sed -i 's/calc_total/order_total/g' orders.py checkout.py report.py
