"""Runs the command line tracks: the crash-safe journal a run appends its traces to, the local
registry of runs (submit, watch, ls, show, kill), and the progress line a long run prints."""
