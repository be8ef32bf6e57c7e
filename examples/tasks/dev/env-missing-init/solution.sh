cat >inventory/__init__.py <<'PY'
"""Stock keeping."""

from .loader import load_items
from .pricing import low_stock, total_value

__all__ = ["load_items", "low_stock", "total_value"]
PY
