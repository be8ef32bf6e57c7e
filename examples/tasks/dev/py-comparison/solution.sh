sed -i 's/if order_total > FREE_SHIPPING_FROM:/if order_total >= FREE_SHIPPING_FROM:/' shipping.py
