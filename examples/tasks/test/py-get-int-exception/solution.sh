sed -i 's/except (KeyError, TypeError):/except (KeyError, ValueError):/' envconfig.py
