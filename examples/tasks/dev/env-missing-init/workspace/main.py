"""Print a summary of stock.csv."""

from inventory import load_items, low_stock, total_value


def main():
    items = load_items("stock.csv")
    print(f"items: {len(items)}")
    print(f"value: {total_value(items):.2f}")
    print(f"low stock: {', '.join(low_stock(items)) or 'none'}")


if __name__ == "__main__":
    main()
