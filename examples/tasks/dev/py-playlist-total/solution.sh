# Split #EXTINF at the first comma only, and keep the minutes below 60.
python3 - <<'PY'
path = "playlist.py"
src = open(path).read()
src = src.replace('''                fields = line[len("#EXTINF:"):].split(",")
                tracks.append((fields[1].strip(), int(fields[0])))
''', '''                seconds, title = line[len("#EXTINF:"):].split(",", 1)
                tracks.append((title.strip(), int(seconds)))
''')
src = src.replace("    minutes = seconds // 60\n", "    minutes = seconds // 60 % 60\n")
open(path, "w").write(src)
PY
