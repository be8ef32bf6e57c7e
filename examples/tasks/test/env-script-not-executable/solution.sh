chmod +x run.sh tools/words.sh
