sed -i 's/len(text.split(" "))/len(text.split())/' wc.py
