sed -i 's|"test": "mocha --recursive test/"|"test": "node --test test/"|' package.json
