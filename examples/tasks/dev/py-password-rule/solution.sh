sed -i 's/(has_letter or has_digit)/has_letter and has_digit/' password.py
