#!/bin/sh
# Copies the notes file to notes.bak.
# TODO: keep more than one backup
cp notes.txt notes.bak
