sed -i '1s|.*|#!/usr/bin/env python3|' tools/csv2md.py
