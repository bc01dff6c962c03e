"""``memrank view``: any result (unsigned, a development run, a slice) as a local static page.

The page is laid out with the board's own theme (its stylesheet, filters and value table);
the two page templates are the viewer's own, in ``memrank/view/templates``, since a board page
speaks of signed artifacts and a viewed result is not one. An index shows the headline, one
line per measure and the headline per category; each task has a page of its own with the
question, the documents recalled in rank order, and every value with its why.
"""

from __future__ import annotations

from memrank.view.page import write_view

__all__ = ["write_view"]
