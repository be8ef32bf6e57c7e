mv shop/prices.py shop/pricing.py
sed -i 's/from .prices import/from .pricing import/' shop/cart.py
