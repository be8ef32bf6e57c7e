# Lowercase hex digits a-f are worth 10-15 too.
sed -i "s/        return c - 'a';/        return c - 'a' + 10;/" urldecode.c
