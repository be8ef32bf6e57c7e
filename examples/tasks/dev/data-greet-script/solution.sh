cat >greet.sh <<'EOF'
#!/bin/bash
# Greets everyone listed in names.txt.
while IFS= read -r line || [ -n "$line" ]; do
    name="$(echo "$line" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')"
    [ -n "$name" ] && echo "Hello, $name!"
done <names.txt
EOF
chmod +x greet.sh
