sed 's/^currency = EUR$/currency = USD/' config.example.ini >config.ini
