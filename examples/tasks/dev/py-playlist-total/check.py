"""Hidden check of py-playlist-total: playlist.py prints the right track
count, total (H:MM:SS) and longest track (full title, commas included) for
the task's pristine roadtrip.m3u and for a longer playlist made here, with a
track over an hour and titles with several commas."""

import os
import subprocess
import sys
import tempfile


def hms(seconds):
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def expected(path):
    tracks = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("#EXTINF:"):
                seconds, title = line[len("#EXTINF:"):].split(",", 1)
                tracks.append((title.strip(), int(seconds)))
    total = sum(seconds for _, seconds in tracks)
    title, longest = max(tracks, key=lambda track: track[1])
    return (f"tracks: {len(tracks)}\ntotal: {hms(total)}\n"
            f"longest: {title} ({hms(longest)})\n")


def compare(path, what):
    want = expected(path)
    run = subprocess.run([sys.executable, "playlist.py", path],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"playlist.py failed on {what}:\n{run.stderr}")
    if run.stdout != want:
        sys.exit(f"for {what} expected:\n{want}got:\n{run.stdout}")


compare(os.path.join(os.environ["TASK_DIR"], "workspace", "roadtrip.m3u"),
        "the task's roadtrip.m3u")

other = """#EXTM3U
#EXTINF:3725,Grateful Dead - Dark Star (live, Fillmore West, 1969)
live/dark-star.flac
#EXTINF:59,Intro
live/intro.flac
#EXTINF:1801,Pink Floyd - Echoes
albums/meddle/echoes.flac
#EXTINF:2400,Mike Oldfield - Tubular Bells, Part One
albums/tubular-bells/part-one.flac
#EXTINF:605,Yes, Jon Anderson, Steve Howe - Roundabout, extended
albums/fragile/roundabout.flac
"""
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "long.m3u")
    with open(path, "w", encoding="utf-8") as f:
        f.write(other)
    compare(path, "a 2.5-hour playlist with a track of over an hour")
