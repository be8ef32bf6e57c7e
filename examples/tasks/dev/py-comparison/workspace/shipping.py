"""Shipping costs for the shop."""

FREE_SHIPPING_FROM = 50.00
SHIPPING_FEE = 4.99


def shipping_cost(order_total):
    """Return the shipping cost of an order: free from FREE_SHIPPING_FROM on."""
    if order_total > FREE_SHIPPING_FROM:
        return 0.0
    return SHIPPING_FEE
