"""``python -m tools.figures [name ...]``: regenerate every figure (or the named ones)."""

import sys

from .generate import main

main(sys.argv[1:])
