npm install --save --no-audit --no-fund --loglevel=error ms@^2.1.3
