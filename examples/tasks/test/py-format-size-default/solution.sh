sed -i 's/def format_size(num_bytes, precision=0):/def format_size(num_bytes, precision=1):/' sizes.py
