"""End to end: `mctslab serve` in a subprocess, a real headless Chromium clicking a game to its end.

Playwright drives Debian's chromium (scripts/setup.sh --dev installs it); it
never downloads a browser of its own.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import load_data

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTH, HEIGHT = 1280, 800
# The page's colours (static/app.js and style.css): X and O stones, the board, the page.
X_RED, O_BLUE = (0xD1, 0x49, 0x5B), (0x2E, 0x86, 0xAB)
BOARD, PAGE = (0xFB, 0xFB, 0xFD), (0xF4, 0xF5, 0xF7)

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's chromium is not installed at /usr/bin/chromium (scripts/setup.sh --dev)",
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`mctslab serve` on a free localhost port (generic engine: nothing to compile)."""
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "stderr.txt"
    command = [str(Path(sys.executable).parent / "mctslab"), "serve", "--port", str(port)]
    with log.open("w") as errors:
        process = subprocess.Popen(
            [*command, "--engine", "python"], stdout=subprocess.PIPE, stderr=errors, text=True
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        assert process.stdout is not None
        first_line = process.stdout.readline()
        assert url in first_line, first_line + log.read_text()  # it prints where the board is
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "api/catalog", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise AssertionError(log.read_text()) from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


def _state(page: Any) -> str:
    value: str = page.get_attribute("#status", "data-state")
    return value


def _start_game(page: Any, game: str, simulations: int) -> None:
    """Fill the new-game form and wait for the new game (a new id in this tab)."""
    page.bring_to_front()  # a background tab's timers are throttled
    page.select_option("#game", game)
    page.select_option("#strength-unit", "simulations")
    page.fill("#strength", str(simulations))
    page.select_option("#side", "0")
    old = page.evaluate("sessionStorage.getItem('mctslab.game')")
    page.click("#new-game")
    page.wait_for_function("(old) => sessionStorage.getItem('mctslab.game') !== old", arg=old)
    page.wait_for_selector("#status[data-state=your-turn]")


def _open_game(page: Any, server: str, **body: Any) -> dict[str, Any]:
    """Make a game through the API (any position) and show it in this tab, as a reload would."""
    request = urllib.request.Request(
        f"{server}api/games", data=json.dumps(body).encode(), method="POST"
    )
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=5) as response:
        game: dict[str, Any] = json.load(response)
    page.wait_for_selector("#status[data-state]")  # the page's own first game is stored
    page.evaluate("(id) => sessionStorage.setItem('mctslab.game', id)", game["id"])
    page.reload()
    page.wait_for_selector("#status[data-state]")
    return game


def _page_on_game(browser: Any, server: str, **body: Any) -> Any:
    """A new tab showing a game made through the API, once it is the person's turn."""
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(server)
    _open_game(page, server, **body)
    page.wait_for_selector("#status[data-state=your-turn]")
    return page


def _play_to_the_end(page: Any) -> int:
    """Click the first free cell on each turn until the game ends; the number of moves."""
    for _ in range(9):
        if _state(page) == "over":
            break
        before = page.locator("#move-list li").count()
        page.locator("#board rect.target").first.click()
        # Either the click ended the game, or the AI answered and it is our turn again.
        page.wait_for_function(
            """(before) => {
              const state = document.querySelector('#status').dataset.state;
              const moves = document.querySelectorAll('#move-list li').length;
              return (state === 'over' && moves > before) ||
                     (state === 'your-turn' && moves >= before + 2);
            }""",
            arg=before,
        )
    assert _state(page) == "over"
    count: int = page.locator("#move-list li").count()
    return count


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _pixels(browser: Any, png: bytes, points: list[tuple[float, float]]) -> list[list[int]]:
    """The RGB colour of the screenshot at each point, read back through a canvas."""
    page = browser.new_page()
    try:
        source = "data:image/png;base64," + base64.b64encode(png).decode()
        page.set_content(f'<img id="shot" src="{source}">')
        page.wait_for_function("document.getElementById('shot').complete")
        colours: list[list[int]] = page.evaluate(
            """(points) => {
              const image = document.getElementById('shot');
              const canvas = document.createElement('canvas');
              canvas.width = image.naturalWidth;
              canvas.height = image.naturalHeight;
              const context = canvas.getContext('2d');
              context.drawImage(image, 0, 0);
              const at = ([x, y]) => context.getImageData(Math.round(x), Math.round(y), 1, 1);
              return points.map((point) => Array.from(at(point).data.slice(0, 3)));
            }""",
            points,
        )
        return colours
    finally:
        page.close()


def _close(colour: list[int], expected: tuple[int, int, int], tolerance: int = 24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour, expected, strict=True))


def test_a_full_game_of_tictactoe_in_the_browser(server: str, browser: Any, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server)
    page.wait_for_selector("#status[data-state]")
    _start_game(page, "tictactoe", simulations=300)

    moves = _play_to_the_end(page)
    status = page.inner_text("#status")
    assert re.match(r"^(You win!|The AI wins|Draw) \(", status), status
    # The line that won is ringed (a move may complete two lines at once).
    ringed = page.locator("#board .win").count()
    assert ringed == 0 if status.startswith("Draw") else ringed >= 3, (status, ringed)
    x_stones, o_stones = page.locator("#board .stone.p0"), page.locator("#board .stone.p1")
    assert (x_stones.count(), o_stones.count()) == ((moves + 1) // 2, moves // 2)
    # The analysis panel shows the AI's last search.
    assert page.inner_text("#sims") != "–" and page.locator("#top-moves tbody tr").count() > 0
    assert not page.is_enabled("#hint") and page.is_enabled("#undo")

    png = page.screenshot(path=str(tmp_path / "tictactoe.png"))
    assert _png_size(png) == (WIDTH, HEIGHT)
    x_box, o_box = x_stones.first.bounding_box(), o_stones.first.bounding_box()
    x_centre = (x_box["x"] + x_box["width"] / 2, x_box["y"] + x_box["height"] / 2)
    o_centre = (o_box["x"] + o_box["width"] / 2, o_box["y"] + o_box["height"] / 2)
    # The O is a ring: its stroke lies at about 0.8 of the half-width from the centre.
    o_ring = (o_centre[0] + 0.8 * o_box["width"] / 2, o_centre[1])
    corner = page.locator("#board").bounding_box()
    board_margin = (corner["x"] + 8, corner["y"] + corner["height"] - 8)
    page_background = (WIDTH - 3, HEIGHT - 3)
    x_colour, ring, hole, margin, background = _pixels(
        browser, png, [x_centre, o_ring, o_centre, board_margin, page_background]
    )
    assert _close(x_colour, X_RED), x_colour
    assert _close(ring, O_BLUE), ring
    assert not _close(hole, O_BLUE), hole
    assert _close(margin, BOARD), margin
    assert _close(background, PAGE), background
    grid = [(x, y) for x in range(0, WIDTH, 40) for y in range(0, HEIGHT, 40)]
    assert len({tuple(colour) for colour in _pixels(browser, png, grid)}) > 8  # not blank

    # The same page in Chinese.
    page.click("#language")
    assert re.match(r"^(你赢了！|AI 获胜|平局)（", page.inner_text("#status"))
    assert page.inner_text("#undo") == "悔棋"
    page.click("#language")
    assert page.inner_text("#undo") == "Undo"
    assert errors == []
    page.close()


def test_each_tab_plays_its_own_game(server: str, browser: Any) -> None:
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    try:
        first, second = context.new_page(), context.new_page()
        for page in (first, second):
            page.goto(server)
            page.wait_for_selector("#status[data-state]")
        _start_game(first, "connect4", simulations=200)
        _start_game(second, "tictactoe", simulations=200)
        ids = [page.evaluate("sessionStorage.getItem('mctslab.game')") for page in (first, second)]
        assert ids[0] != ids[1]
        first.bring_to_front()
        first.locator("#board rect.target[data-move='3']").click()
        first.wait_for_function("document.querySelectorAll('#move-list li').length === 2")
        first.wait_for_selector("#status[data-state=your-turn]")
        assert second.locator("#move-list li").count() == 0
        assert second.locator("#board .stone").count() == 0
        # A reload keeps the tab's game.
        first.reload()
        first.wait_for_selector("#status[data-state=your-turn]")
        assert first.locator("#board .stone").count() == 2
    finally:
        context.close()


def test_a_tab_whose_game_is_closed_says_so_and_starts_none_by_itself(
    server: str, browser: Any
) -> None:
    # Before, the tab started a new game at once: on a full server that closed another tab's
    # game, whose page did the same, and so on.
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(server)
    page.wait_for_selector("#status[data-state=your-turn]")
    # Every message the page shows, however briefly.
    page.evaluate(
        """() => {
          const message = document.querySelector('#message');
          window.shown = [];
          new MutationObserver(() => window.shown.push(message.textContent))
            .observe(message, {childList: true, characterData: true, subtree: true});
        }"""
    )
    old = page.evaluate("sessionStorage.getItem('mctslab.game')")
    # Another tab sharing this one's storage deletes the game.
    request = urllib.request.Request(f"{server}api/games/{old}", method="DELETE")
    urllib.request.urlopen(request, timeout=5).close()
    page.wait_for_selector("#status[data-state=closed]")
    gone = "This game is no longer on the server: start a new game to play on."
    assert page.inner_text("#status") == gone
    assert page.locator("#board rect.target").count() == 0 and not page.is_enabled("#hint")
    assert not [text for text in page.evaluate("window.shown") if "connection" in text.lower()]
    page.wait_for_timeout(300)
    assert page.evaluate("sessionStorage.getItem('mctslab.game')") == old
    # A game closed to make room says so (the server's message, as the stream brings it).
    page.evaluate("socket.onmessage({data: JSON.stringify({type: 'closed', reason: 'evicted'})})")
    assert page.inner_text("#status").startswith("The server was full, so this game was closed")
    # The person starts one when they like.
    page.click("#new-game")
    page.wait_for_function("(old) => sessionStorage.getItem('mctslab.game') !== old", arg=old)
    page.wait_for_selector("#status[data-state=your-turn]")
    page.close()


def test_a_new_game_of_the_tabs_own_never_shows_its_old_game_closed(
    server: str, browser: Any
) -> None:
    # The old game is deleted as the new one is made, and its stream says "closed" before
    # the new game's answer comes: before, the page showed "no longer on the server" meanwhile.
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(server)
    page.wait_for_selector("#status[data-state=your-turn]")
    page.evaluate(
        """() => {
          const status = document.querySelector('#status');
          window.states = [];
          new MutationObserver(() => window.states.push(status.dataset.state))
            .observe(status, {attributes: true, attributeFilter: ['data-state']});
        }"""
    )
    old = page.evaluate("sessionStorage.getItem('mctslab.game')")
    page.click("#new-game")
    page.wait_for_function("(old) => sessionStorage.getItem('mctslab.game') !== old", arg=old)
    page.wait_for_selector("#status[data-state=your-turn]")
    page.wait_for_timeout(300)
    assert "closed" not in page.evaluate("window.states")
    page.close()


def test_a_deletion_met_while_a_new_game_is_refused_still_shows(server: str, browser: Any) -> None:
    # The old game's "deleted" is held back while the tab's new game is on its way; if the
    # new game is refused, the deletion was another tab's, and the page must say so.
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(server)
    page.wait_for_selector("#status[data-state=your-turn]")
    page.evaluate(
        """async () => {
          api = async () => {
            socket.onmessage({data: JSON.stringify({type: 'closed', reason: 'deleted'})});
            throw new Error('refused');
          };
          await newGame();
        }"""
    )
    page.wait_for_selector("#status[data-state=closed]")
    page.close()


def test_othello_marks_the_legal_moves_and_says_when_to_pass(server: str, browser: Any) -> None:
    page = _page_on_game(browser, server, game="othello", simulations=50)
    # No hover on a touch screen: Black's four opening moves are marked.
    assert page.locator("#board .legal").count() == 4
    # Here Black has no legal move and White has.
    moves = ["d3", "c3", "e6", "d2", "d1", "e1", "b2", "c1"]
    _open_game(page, server, game="othello", moves=moves, simulations=50)
    page.wait_for_selector("#status[data-state=your-turn]")
    assert page.inner_text("#status") == "You have no legal move: pass"
    assert page.is_visible("#pass") and page.is_enabled("#pass")
    assert page.locator("#board .legal").count() == 0
    page.close()


def test_undo_is_enabled_only_with_a_move_of_yours_to_take_back(server: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(server)
    # The person plays O: only the AI's first move is on the board.
    _open_game(page, server, game="tictactoe", human=1, moves=["b2"], simulations=50)
    page.wait_for_selector("#status[data-state=your-turn]")
    assert not page.is_enabled("#undo")
    page.locator("#board rect.target").first.click()
    page.wait_for_function("document.querySelectorAll('#move-list li').length === 3")
    page.wait_for_selector("#status[data-state=your-turn]")
    assert page.is_enabled("#undo")
    page.close()


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot program is not installed")
def test_the_search_tree_opens_on_its_root(server: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(server)
    _open_game(page, server, game="tictactoe", human=1, simulations=300)
    page.wait_for_selector("#status[data-state=your-turn]")  # the AI has moved
    page.click("#show-tree")
    root = page.locator("#tree-body svg g.node").first
    root.wait_for()
    view, node = page.locator("#tree-body").bounding_box(), root.bounding_box()
    # The tree is wider than the dialog, and its root is in view, about centred.
    assert page.evaluate("document.querySelector('#tree-body').scrollWidth") > 2 * view["width"]
    assert "root" in (root.text_content() or "")
    centre = node["x"] + node["width"] / 2
    assert abs(centre - (view["x"] + view["width"] / 2)) < view["width"] / 4
    page.close()


def test_the_analysis_says_what_its_figures_count(server: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(server)
    _open_game(page, server, game="tictactoe", human=1, simulations=300)
    page.wait_for_selector("#status[data-state=your-turn]")  # the AI has moved
    score = page.locator("#top-moves th").nth(3)
    assert score.inner_text() == "Score" and "a draw ½" in (score.get_attribute("title") or "")
    assert re.fullmatch(r"[\d,]+ simulations in \d+\.\d\d s", page.inner_text("#sims"))
    # A share of a few visits in a thousand is not 0%, nor is 99.97% a certainty.
    shown = page.evaluate("[0.004, 0.0001, 0.9997, 0, 1].map(percent)")
    assert shown == ["0.4%", "<0.1%", ">99.9%", "0%", "100%"]
    # A search that a kept proof made unnecessary (the compiled engine's tree does that).
    page.evaluate(
        """accept({...game, version: game.version + 1, last_search: {
            ...game.last_search, simulations: 0, sims_per_second: 0, stopped_by: "proven"}})"""
    )
    assert page.inner_text("#sims") == "proven, no search needed"
    assert page.inner_text("#speed") == "–"
    page.close()


def test_the_page_names_sides_moves_and_scores_plainly(server: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(server)
    # Connect Four's X and O are red and yellow discs; its moves are columns.
    _open_game(page, server, game="connect4", moves=["4", "3"], seconds=60)
    page.wait_for_selector("#status[data-state=your-turn]")
    assert page.inner_text("#status") == "Your turn (Red X)"
    assert page.locator("#side option").all_inner_texts() == [
        "Red X (moves first)",
        "Yellow O (moves second)",
    ]
    assert page.locator("#move-list li").all_inner_texts() == ["col 4", "col 3"]
    # Stopping a hint plays nothing.
    page.click("#hint")
    page.wait_for_selector("#status[data-state=thinking]")
    assert page.inner_text("#stop") == "Stop"
    page.click("#stop")
    page.wait_for_selector("#status[data-state=your-turn]")
    assert page.inner_text("#stop") == "Stop and play"
    # Othello's final score says whose discs are whose.
    moves = ["d3", "c3", "f5", "f4", "f3", "d2", "d1", "e3", "b3"]
    _open_game(page, server, game="othello", moves=moves)
    assert page.inner_text("#status") == "You win! (wipe-out, Black 13 – White 0)"
    # The winner's discs come first, whichever side won.
    # A transcript that leaves out Black's passes: a record's move line, not a list of moves.
    white_wins = load_data("othello.json")["many_passes_game"]["moves"]
    _open_game(page, server, record=f"othello\n{white_wins}\n")
    assert page.inner_text("#status") == "The AI wins (wipe-out, White 59 – Black 0)"
    page.close()


def test_a_second_quick_click_is_ignored(server: str, browser: Any) -> None:
    page = _page_on_game(browser, server, game="tictactoe", simulations=50)
    # Two clicks on two cells before the first move is answered.
    page.evaluate(
        """() => {
          const [first, second] = document.querySelectorAll('#board rect.target');
          first.dispatchEvent(new MouseEvent('click'));
          second.dispatchEvent(new MouseEvent('click'));
        }"""
    )
    page.wait_for_function("document.querySelectorAll('#move-list li').length === 2")
    page.wait_for_selector("#status[data-state=your-turn]")
    assert page.inner_text("#message") == ""
    page.close()


def test_stop_is_offered_for_a_waiting_hint_not_for_a_waiting_ai_move(
    server: str, browser: Any
) -> None:
    page = _page_on_game(browser, server, game="tictactoe", simulations=50)
    # A search waiting for a free slot, as the server says (stopping it cancels it).
    page.evaluate("accept({...game, version: game.version + 1, searching: 'hint', queued: true})")
    assert page.is_enabled("#stop") and page.inner_text("#stop") == "Stop"
    page.evaluate(
        "accept({...game, version: game.version + 1, searching: 'ai', queued: true, to_move: 1})"
    )
    assert not page.is_enabled("#stop")
    page.close()


def test_after_a_failed_search_the_ai_is_asked_again_when_the_person_says_so(
    server: str, browser: Any
) -> None:
    page = _page_on_game(browser, server, game="tictactoe", simulations=50)
    asked: list[str] = []

    def answer(route: Any) -> None:
        asked.append(route.request.url)
        searching = {**snapshot, "version": snapshot["version"] + 1, "searching": "ai"}
        route.fulfill(status=202, json={**searching, "error": None})

    page.route("**/ai", answer)
    # The AI's turn, its search failed (as the server tells it): no new search by itself.
    snapshot = page.evaluate(
        """() => {
          const failed = {...game, version: game.version + 1, to_move: 1,
                          error: "The search failed: injected"};
          accept(failed);
          return failed;
        }"""
    )
    assert _state(page) == "failed" and page.inner_text("#message") == snapshot["error"]
    assert page.inner_text("#status") == "The AI's search failed"
    assert page.is_visible("#retry") and asked == []
    page.click("#retry")
    page.wait_for_selector("#status[data-state=thinking]")
    assert len(asked) == 1 and not page.is_visible("#retry")
    page.close()


def test_a_double_click_on_undo_or_new_game_does_it_once(server: str, browser: Any) -> None:
    # Before, a double click on Undo took back two moves, and one on "Start new game" made
    # two games, one of them left on the server.
    page = _page_on_game(browser, server, game="tictactoe", moves=["a1", "b1", "a2", "b2"])
    page.evaluate(
        """() => {
          const undo = document.querySelector('#undo');
          undo.dispatchEvent(new MouseEvent('click'));
          undo.dispatchEvent(new MouseEvent('click'));
        }"""
    )
    page.wait_for_function("document.querySelectorAll('#move-list li').length === 2")
    page.wait_for_timeout(300)  # a second undo would have been answered by now
    assert page.locator("#move-list li").all_inner_texts() == ["a1", "b1"]
    assert page.inner_text("#message") == ""
    made: list[dict[str, Any]] = []

    def note(request: Any) -> None:
        if request.url.endswith("/api/games"):
            made.append(request.post_data_json)

    page.on("request", note)
    old = page.evaluate("sessionStorage.getItem('mctslab.game')")
    page.evaluate(
        """() => {
          const form = document.querySelector('#new-game-form');
          form.requestSubmit();
          form.requestSubmit();
        }"""
    )
    page.wait_for_function("(old) => sessionStorage.getItem('mctslab.game') !== old", arg=old)
    page.wait_for_timeout(300)
    # One new game, which replaces the old one (deleted before it is made: see the API's tests).
    assert [body["replace"] for body in made] == [old]
    page.close()


def test_a_phone_screen_fits_the_page(server: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 320, "height": 640})
    page.goto(server)
    _open_game(page, server, game="connect4", simulations=50)
    page.wait_for_selector("#status[data-state=your-turn]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    # The hint's marker shows on Connect Four's blue board.
    page.click("#hint")
    hint = page.locator("#board .hint")
    hint.wait_for()
    assert hint.get_attribute("stroke") == "#ffffff"
    page.close()


# The page's fetch, with its answers to the AI's move requests held back (a slow network).
# The page's requests for the AI's move (before they are sent, ``hold="request"``, or their
# answers, ``"answer"``) and the answers to a new game's, held until the test lets them go
# (window.releaseAi(), window.releaseNewGame()): the order of the answers is the test's.
_HELD_REQUESTS = """(hold) => {
  window.aiAnswered = 0;
  const fetchNow = window.fetch;
  const held = (name) => new Promise((done) => { window[name] = done; });
  window.fetch = async (url, options) => {
    const path = String(url);
    if (path.endsWith('/ai')) {
      if (hold === 'request') await held('releaseAi');
      const response = await fetchNow(url, options);
      if (hold === 'answer') await held('releaseAi');
      window.aiAnswered += 1;
      return response;
    }
    const response = await fetchNow(url, options);
    if (path.endsWith('/api/games') && options.method === 'POST') await held('releaseNewGame');
    return response;
  };
}"""
#: A turn of the page's event loop: what the last answer set off has run.
_SETTLED = "new Promise((done) => setTimeout(done, 0))"


def test_a_new_game_started_while_the_ai_is_asked_to_move_stays_shown(
    server: str, browser: Any
) -> None:
    # Before, the late answer to the old game's AI request was taken as this tab's game: the
    # tab went back to the old game, deleted by then ("no longer on the server").
    page = _page_on_game(browser, server, game="tictactoe", simulations=50)
    page.evaluate(_HELD_REQUESTS, "answer")
    old = page.evaluate("sessionStorage.getItem('mctslab.game')")
    page.locator("#board rect.target").first.click()
    page.wait_for_function("typeof window.releaseAi === 'function'")  # its answer is held
    page.click("#new-game")
    page.wait_for_function("typeof window.releaseNewGame === 'function'")
    page.evaluate("window.releaseNewGame()")
    page.wait_for_function("(old) => sessionStorage.getItem('mctslab.game') !== old", arg=old)
    new = page.evaluate("sessionStorage.getItem('mctslab.game')")
    page.evaluate("window.releaseAi()")
    page.wait_for_function("window.aiAnswered === 1")  # the old game's answer has come
    page.evaluate(_SETTLED)
    assert page.evaluate("[sessionStorage.getItem('mctslab.game'), game.id]") == [new, new]
    assert _state(page) == "your-turn" and page.locator("#move-list li").count() == 0
    page.close()


def test_an_error_for_the_game_being_replaced_is_not_shown_on_the_new_one(
    server: str, browser: Any
) -> None:
    # The old game's AI request reaches the server after the new game's request deleted it,
    # and its error ("Unknown game id") comes back before the new game does: before, it was
    # shown, and stayed on the new game.
    page = _page_on_game(browser, server, game="tictactoe", simulations=50)
    page.evaluate(_HELD_REQUESTS, "request")
    old = page.evaluate("sessionStorage.getItem('mctslab.game')")
    page.locator("#board rect.target").first.click()
    page.wait_for_function("typeof window.releaseAi === 'function'")
    page.click("#new-game")
    page.wait_for_function("typeof window.releaseNewGame === 'function'")  # old one deleted
    page.evaluate("window.releaseAi()")
    page.wait_for_function("window.aiAnswered === 1")
    page.evaluate(_SETTLED)
    page.evaluate("window.releaseNewGame()")
    page.wait_for_function("(old) => sessionStorage.getItem('mctslab.game') !== old", arg=old)
    assert _state(page) == "your-turn" and page.locator("#move-list li").count() == 0
    assert page.inner_text("#message") == ""
    page.close()


def test_undo_waits_while_the_ais_move_is_asked_for(server: str, browser: Any) -> None:
    # Before, Undo was enabled until the AI's search began: the undo came first, and the AI's
    # request was refused with "It is your turn, not the AI's".
    page = _page_on_game(browser, server, game="tictactoe", moves=["a1", "b1"], simulations=50)
    page.evaluate(_HELD_REQUESTS, "request")  # the AI's move request reaches the server late
    page.locator("#board rect.target").first.click()
    page.wait_for_function("typeof window.releaseAi === 'function'")
    page.wait_for_function("document.querySelectorAll('#move-list li').length === 3")
    assert not page.is_enabled("#undo")
    page.evaluate("window.releaseAi()")
    page.wait_for_function("document.querySelectorAll('#move-list li').length === 4")
    page.wait_for_selector("#status[data-state=your-turn]")
    page.wait_for_function("!document.querySelector('#undo').disabled")
    assert page.inner_text("#message") == ""
    page.close()


def test_an_ai_request_lost_on_the_way_can_be_asked_again(server: str, browser: Any) -> None:
    # Before, a request for the AI's move that got no answer (the network) left the page
    # waiting for ever: the position counted as asked, and no "Ask the AI again" showed.
    page = _page_on_game(browser, server, game="tictactoe", simulations=50)
    page.evaluate(
        """() => {
          const fetchNow = window.fetch;
          let lost = false;
          window.fetch = async (url, options) => {
            if (String(url).endsWith('/ai') && !lost) {
              lost = true;
              throw new TypeError('Failed to fetch');
            }
            return fetchNow(url, options);
          };
        }"""
    )
    page.locator("#board rect.target").first.click()
    page.wait_for_selector("#retry:not([hidden])")
    assert _state(page) == "failed" and page.inner_text("#message") == "Failed to fetch"
    page.click("#retry")
    page.wait_for_function("document.querySelectorAll('#move-list li').length === 2")
    page.wait_for_selector("#status[data-state=your-turn]")
    assert page.is_hidden("#retry")
    page.close()


def test_a_game_is_played_with_the_keyboard_alone(server: str, browser: Any) -> None:
    # Before, the board's cells took clicks only: no key reached them, nor the Tab key the board.
    page = _page_on_game(browser, server, game="tictactoe", simulations=50)
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "board":
            break
    assert page.evaluate("document.activeElement.id") == "board"
    # The keyboard's cell starts at the centre, shows, and is named.
    assert page.is_visible("#board .cursor")
    assert page.get_attribute("#board", "aria-label").endswith("(b2, empty)")
    page.keyboard.press("Alt+ArrowLeft")  # the browser's (back), not the board's
    assert page.get_attribute("#board", "aria-label").endswith("(b2, empty)")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")  # the board's edge: it stays on a3
    assert page.get_attribute("#board", "aria-label").endswith("(a3, empty)")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('#move-list li').length === 2")
    page.wait_for_selector("#status[data-state=your-turn]")
    assert page.locator("#move-list li").first.inner_text() == "a3"
    # The board keeps the focus for the next move; a taken cell is named with its stone,
    # and plays nothing but says so.
    assert page.evaluate("document.activeElement.id") == "board"
    assert page.is_visible("#board .cursor")
    assert page.get_attribute("#board", "aria-label").endswith("(a3, X)")
    page.keyboard.press(" ")
    page.wait_for_function("document.querySelector('#message').textContent !== ''")
    assert page.inner_text("#message") == "Not a legal move here."
    assert page.locator("#move-list li").count() == 2
    free = page.evaluate("game.legal[0]")  # from a3, the top left cell
    for key, times in (("ArrowDown", free["id"] // 3), ("ArrowRight", free["id"] % 3)):
        for _ in range(times):
            page.keyboard.press(key)
    page.keyboard.press(" ")
    page.wait_for_function("document.querySelectorAll('#move-list li').length >= 3")
    assert page.locator("#move-list li").nth(2).inner_text() == free["move"]
    page.close()


def test_typing_a_board_size_keeps_the_stones_in_a_row(server: str, browser: Any) -> None:
    # Before, the first digit of "11" was taken as the size: k became 1, and the form refused
    # to start ("must be greater than or equal to 3").
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(server)
    page.wait_for_selector("#status[data-state]")
    page.select_option("#game", "gomoku")
    page.locator("#params input[name=size]").click(click_count=3)
    page.keyboard.type("11")
    assert page.input_value("#params input[name=k]") == "5"
    page.locator("#params input[name=k]").click(click_count=3)
    page.keyboard.type("9")
    page.locator("#params input[name=size]").click(click_count=3)
    page.keyboard.type("6")  # a smaller board still lowers k
    assert page.input_value("#params input[name=k]") == "6"
    page.locator("#params input[name=size]").click(click_count=3)
    page.keyboard.type("11")
    page.select_option("#strength-unit", "simulations")
    page.fill("#strength", "50")
    old = page.evaluate("sessionStorage.getItem('mctslab.game')")
    page.click("#new-game")
    page.wait_for_function("(old) => sessionStorage.getItem('mctslab.game') !== old", arg=old)
    assert page.evaluate("game.settings.params") == {"width": 11, "height": 11, "k": 6}
    page.close()
