"""The board: the static leaderboard `memrank build-site` makes from verified artifacts.

One direction of flow, a module per step: ``load`` reads board.toml and verifies every envelope
against the trust root; ``build`` turns the verified runs into the typed ``model.Board``
(tracks, rows, cells, ranks), with run pages from ``pages`` and pair pages from ``pairs``;
``docs`` renders docs/*.md; ``render`` lays the Board out with the jinja2 templates, ``files``
writes its data files, and ``site`` assembles, writes and compares the tree. ``urls`` is the one
place paths are made. The board runs nothing: it never imports run, systems or evaluations.
"""

from memrank.board.site import Made, differences, make, write

__all__ = ["Made", "differences", "make", "write"]
