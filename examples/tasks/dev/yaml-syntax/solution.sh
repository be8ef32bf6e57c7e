sed -i 's/^     run: make test$/    run: make test/' deploy.yml
