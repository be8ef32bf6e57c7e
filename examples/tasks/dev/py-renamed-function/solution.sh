sed -i 's/word_count/count_words/g' report.py reading.py
