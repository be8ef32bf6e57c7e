"""Summarise an extended M3U playlist: the number of tracks, the total
playing time and the longest track.

Usage: python3 playlist.py roadtrip.m3u
"""

import sys


def read_playlist(path):
    """The (title, seconds) of each track of the playlist at `path`, from
    its `#EXTINF:<seconds>,<title>` lines."""
    tracks = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("#EXTINF:"):
                fields = line[len("#EXTINF:"):].split(",")
                tracks.append((fields[1].strip(), int(fields[0])))
    return tracks


def hms(seconds):
    """`seconds` as H:MM:SS."""
    hours = seconds // 3600
    minutes = seconds // 60
    return f"{hours}:{minutes:02d}:{seconds % 60:02d}"


def main(argv):
    tracks = read_playlist(argv[1])
    total = sum(seconds for _, seconds in tracks)
    title, longest = max(tracks, key=lambda track: track[1])
    print(f"tracks: {len(tracks)}")
    print(f"total: {hms(total)}")
    print(f"longest: {title} ({hms(longest)})")


if __name__ == "__main__":
    main(sys.argv)
