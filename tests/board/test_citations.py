"""What a reader who uses the numbers cites: the home page says how to cite the board (its title,
address, date and trust root) and lists the paper behind each evaluation it shows; each
evaluation's page names its own paper, and the demo, memrank's own, names none."""

from __future__ import annotations

import re

from memrank.board.citations import PAPERS
from memrank.board.model import Board


def test_the_home_page_cites_the_board_and_each_evaluation_s_paper(
    committed_board: tuple[Board, dict[str, bytes]],
) -> None:
    board, tree = committed_board
    home = tree["index.html"].decode().partition('id="cite-heading"')[2].partition("</section>")[0]
    assert f"<cite>{board.title}</cite>, {board.base_url}" in home
    assert f"trust root, version {board.trust.version}" in home
    assert board.updated is not None and f"updated {board.updated:%Y-%m-%d}" in home
    assert f"howpublished = {{\\url{{{board.base_url}}}}}" in home
    shown = {column.evaluation for track in board.tracks for column in track.columns}
    cited = re.findall(r"<li>([\w-]+): ", home)
    assert cited and set(cited) == shown & set(PAPERS) and "demo" in shown - set(cited)
    assert "Maharana et al., <cite>Evaluating Very Long-Term Conversational Memory" in home


def test_an_evaluation_page_names_the_paper_its_tasks_come_from(
    committed_board: tuple[Board, dict[str, bytes]],
) -> None:
    board, tree = committed_board
    for page in board.evaluations:
        html = tree[page.path].decode()
        paper = PAPERS.get(page.column.evaluation)
        if paper is None:
            assert "Where the tasks come from" not in html, page.path
            continue
        assert (
            f'{paper.authors}, <cite>{paper.title}</cite>, {paper.venue}: <a href="{paper.url}">'
            in html
        )


def test_every_paper_is_an_arxiv_abstract() -> None:
    for name, paper in PAPERS.items():
        assert re.fullmatch(r"https://arxiv\.org/abs/\d{4}\.\d{5}", paper.url), name
        assert paper.authors.endswith(" et al."), name
