"""``python -m memrank``: the command line, for when the ``memrank`` script is not on PATH."""

from memrank.cli import main

main()
