sed -i 's/^  port: 8000 /  port: 8080 /' config.yaml
