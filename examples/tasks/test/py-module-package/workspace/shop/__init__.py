"""The shop's pricing and cart code."""
