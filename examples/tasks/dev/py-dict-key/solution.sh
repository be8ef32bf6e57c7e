sed -i "s/user\['phone_number'\]/user['phone']/" users.py
