"""The board: the static leaderboard `memrank build-site` makes from verified artifacts.

One direction of flow, a module per step: ``load`` reads board.toml, systems.toml
(``identity``) and field.toml (``field``: the field's published numbers, shown beside the
board, never ranked) and verifies every envelope against the trust root; ``build`` turns the
verified runs into the typed ``model.Board``: ``reading`` reads each column's scores once, laid out
by ``tables`` (means, intervals, the all-pairs test, categories), ``compare`` turns that into cells, comparisons and evaluation pages,
``pages`` into run pages, ``changelog`` into the board's history (``roots``: the trust root's
versions, from the verified chain). ``docs`` renders docs/*.md;
``render`` lays the Board out with the templates (``text`` keeps artifact text visible and
isolated), ``files`` makes its data files and ``svg`` its plots; ``site`` makes the Board and
lists its files as parts, which ``folder`` makes and writes to a folder, or compares with one,
in as many processes as the board is worth. ``urls`` is the one place paths are made. The board runs nothing: it
never imports run, systems or evaluations.
"""

from memrank.board.folder import Files, differences, write
from memrank.board.site import Made, make

__all__ = ["Files", "Made", "differences", "make", "write"]
