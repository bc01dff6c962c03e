"""The board: the static leaderboard `memrank build-site` makes from verified artifacts.

One direction of flow, a module per step: ``load`` reads board.toml, systems.toml
(``identity``) and field.toml (``field``: the field's published numbers, shown beside the
board, never ranked) and verifies every envelope against the trust root; ``build`` turns the
verified runs into the typed ``model.Board``: ``reading`` reads each column's scores once (means, intervals, the all-pairs
test, categories), ``compare`` turns that into cells, comparisons and evaluation pages,
``pages`` into run pages, ``changelog`` into the board's history (``roots``: the trust root's
versions, from the verified chain). ``docs`` renders docs/*.md;
``render`` lays the Board out with the templates (``text`` keeps artifact text visible and
isolated), ``files`` writes its data files and ``svg`` its plots, and ``site`` assembles, writes
and compares the tree. ``urls`` is the one place paths are made. The board runs nothing: it
never imports run, systems or evaluations.
"""

from memrank.board.site import Made, differences, make, write

__all__ = ["Made", "differences", "make", "write"]
