"""Player specs: parsing, canonical text, errors, and the players they build."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from mctslab.arena import spec as spec_module
from mctslab.arena.spec import parse_player
from mctslab.core.config import Budget, SearchConfig
from mctslab.games import make
from mctslab.players.human import HumanPlayer
from mctslab.players.mcts import MCTSPlayer
from mctslab.protocols._process import MOVE_GRACE
from tests.conftest import OTHELLO_WHITE_MUST_PASS


def test_mcts_spec_reads_search_and_budget_options() -> None:
    spec = parse_player(
        "mcts:seconds=0.5,c=1.2,tree_policy=coinflip,reuse_tree=false,engine=python"
    )
    options = dict(spec.options)
    assert options == {
        "seconds": 0.5,
        "c": 1.2,
        "tree_policy": "coinflip",
        "reuse_tree": False,
        "engine": "python",
    }
    assert spec.text == "mcts:c=1.2,engine=python,reuse_tree=false,seconds=0.5,tree_policy=coinflip"
    assert parse_player(spec.text) == spec
    assert parse_player("MCTS: tree-policy=coinflip").options == (("tree_policy", "coinflip"),)


def test_mcts_spec_builds_the_configured_player() -> None:
    player = parse_player("mcts:iterations=300,engine=python,c=0.7,final_move=value").build(seed=5)
    assert isinstance(player, MCTSPlayer)
    assert player.budget == Budget(iterations=300)
    assert player.engine.config == SearchConfig(c=0.7, final_move="value", seed=5)
    default = parse_player("mcts:engine=python").build()
    assert isinstance(default, MCTSPlayer) and default.budget == Budget().effective()


def test_an_mcts_spec_proves_draws_when_asked() -> None:
    player = parse_player("mcts:prove_draws=true,iterations=300").build(seed=5)
    assert isinstance(player, MCTSPlayer)
    assert player.engine.config == SearchConfig(prove_draws=True, seed=5)
    assert not parse_player("mcts").build(seed=5).engine.config.prove_draws


def test_plain_mcts_spec_is_classic_uct_with_the_options_given() -> None:
    player = parse_player("mcts:plain=true,c=1.98,iterations=15000").build(seed=3)
    assert isinstance(player, MCTSPlayer)
    assert player.engine.config == SearchConfig.plain(c=1.98, seed=3)
    assert parse_player("mcts:plain=false").build(seed=3).engine.config == SearchConfig(seed=3)


def test_a_spec_seed_is_the_base_of_its_players_seeds() -> None:
    spec = parse_player("mcts:seed=11,engine=python")
    assert spec.base_seed == 11 and parse_player("random").base_seed is None
    player = spec.build()
    assert isinstance(player, MCTSPlayer)
    assert player.engine.config.seed == 11


def test_new_search_options_need_no_parser_change(monkeypatch: pytest.MonkeyPatch) -> None:
    # A SearchConfig with an option this module has never heard of.
    @dataclass(frozen=True, kw_only=True)
    class FutureConfig:
        c: float = math.sqrt(2.0)
        virtual_loss: float = 0.0
        solver: bool = False
        schedule: tuple[int, ...] = ()

    monkeypatch.setattr(spec_module, "SearchConfig", FutureConfig)
    spec = parse_player("mcts:virtual_loss=0.25,solver=yes")
    assert dict(spec.options) == {"virtual_loss": 0.25, "solver": True}
    with pytest.raises(
        ValueError, match="The 'virtual_loss' option of the mcts player must be a float"
    ):
        parse_player("mcts:virtual_loss=lots")
    with pytest.raises(ValueError, match="The 'schedule' option of the mcts player cannot be set"):
        parse_player("mcts:schedule=1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "must be a non-empty string"),
        ("alphazero", "Unknown player kind 'alphazero'"),
        ("mcts:speed=9", "unknown option 'speed'; mcts takes c, tree_policy"),
        ("mcts:iterations", "'iterations' is not key=value"),
        ("mcts:iterations=1,iterations=2", "gives 'iterations' twice"),
        ("mcts:iterations=many", "The 'iterations' option of the mcts player must be an int"),
        ("mcts:iterations=0", "The 'iterations' parameter of Budget must be an int >= 1"),
        ("mcts:c=-1", "The 'c' parameter of SearchConfig must be a float >= 0"),
        ("mcts:tree_policy=greedy", "must be one of 'uct', 'coinflip'"),
        ("mcts:reuse_tree=maybe", "must be true or false"),
        ("mcts:engine=gpu", "The 'engine' parameter of mcts must be one of"),
        ("mcts:engine=python,workers=2", "The python engine searches on one thread"),
        ("mcts:engine=python,solver=true,rave=true", "runs plain UCT and has no solver, rave;"),
        ("mcts:engine=python,prove_draws=true", "runs plain UCT and has no prove_draws;"),
        (
            "mcts:solver=false,prove_draws=true",
            "The 'prove_draws' parameter of SearchConfig must be False when solver is False.",
        ),
        ("random:seed=3", "unknown option 'seed'; random takes none"),
        ("naive:simulations=0", "The 'simulations' parameter of naive must be an int >= 1"),
        ("openspiel:iterations=0", "The 'iterations' parameter of OpenSpiel MCTS"),
        ("openspiel:solve=perhaps", "The 'solve' option of the openspiel player must be true"),
        ("engine:telnet=./x", "write engine:PROTOCOL=COMMAND"),
        ("engine:gomocup=", "the gomocup engine's command is missing"),
        ("engine:seconds=2", "what the engine is told before it, e.g. engine:seconds=2,gomocup"),
        ("engine:seconds=1,seconds=2,gtp=x", "gives 'seconds' twice"),
        ("engine:depth=3,gtp=x", "unknown option 'depth'; the gtp engine takes seconds."),
        (
            "engine:seconds=0.5,gtp=x",  # named by its spec, as range errors are
            "Player spec 'engine:seconds=0.5,gtp=x': The 'seconds' option of the gtp engine",
        ),
        ("engine:seconds=0,gtp=x", "The 'seconds' parameter of the gtp engine must be an int >= 1"),
        ("engine:seconds=0,gomocup=x", "of the gomocup engine must be a float >= 0.001"),
        ("engine:memory_mb=0,gomocup=x", "of the gomocup engine must be an int >= 1"),
        ("engine:depth=61,nboard=x", "The 'depth' parameter of the nboard engine must be an int"),
    ],
)
def test_bad_specs_get_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_player(text)
    assert message in str(caught.value)


def test_engine_spec_keeps_the_whole_command() -> None:
    spec = parse_player("engine:gomocup=./pbrain-x --threads=2,fast")
    assert spec.text == "engine:gomocup=./pbrain-x --threads=2,fast"
    assert parse_player(spec.text) == spec
    with pytest.raises(ValueError, match="speaks gomoku; the game is tictactoe"):
        spec.check_game(make("tictactoe"))
    spec.check_game(make("gomoku", size=9))


@pytest.mark.parametrize(
    ("text", "canonical", "told"),
    [
        (
            "engine:Seconds=1.5,match-seconds=60,memory_mb=256,gomocup=./pbrain -t 2,3",
            "engine:match_seconds=60.0,memory_mb=256,seconds=1.5,gomocup=./pbrain -t 2,3",
            {"timeout_turn_ms": 1500, "timeout_match_ms": 60_000, "max_memory_bytes": 256 << 20},
        ),
        (
            "engine:gomocup=./pbrain",
            "engine:gomocup=./pbrain",
            {"timeout_turn_ms": 5000, "timeout_match_ms": 0, "max_memory_bytes": 0},
        ),
        (
            "engine:seconds=3,gtp=gnugo --mode gtp",
            "engine:seconds=3,gtp=gnugo --mode gtp",
            {"seconds_per_move": 3.0, "move_seconds": 3.0 + MOVE_GRACE},
        ),
        ("engine:gtp=x", "engine:gtp=x", {"seconds_per_move": None, "move_seconds": 60.0}),
        ("engine:depth=12,nboard=edax", "engine:depth=12,nboard=edax", {"depth": 12}),
    ],
)
def test_an_engine_spec_says_what_the_engine_is_told(
    text: str, canonical: str, told: dict[str, object]
) -> None:
    spec = parse_player(text)
    assert spec.text == canonical and parse_player(canonical) == spec
    player = spec.build()
    assert {key: getattr(player, key) for key in told} == told


def test_an_engine_spec_sets_one_option_as_a_sweep_does() -> None:
    spec = parse_player("engine:seconds=1,gomocup=./pbrain a,b")
    assert spec.with_option("seconds", "4").text == "engine:seconds=4.0,gomocup=./pbrain a,b"
    assert spec.with_option("memory_mb", "64").text == (
        "engine:memory_mb=64,seconds=1.0,gomocup=./pbrain a,b"
    )
    with pytest.raises(ValueError, match="unknown option 'depth'; the gomocup engine takes"):
        spec.with_option("depth", "3")


def test_players_that_cannot_play_the_game_are_refused() -> None:
    with pytest.raises(ValueError, match="plays gomoku only"):
        parse_player("naive").check_game(make("tictactoe"))
    with pytest.raises(ValueError, match="OpenSpiel has no game that plays like 'countdown'"):
        parse_player("openspiel").check_game(make("countdown"))
    parse_player("openspiel").check_game(make("connect4"))


def test_with_option_sets_one_option_and_checks_it() -> None:
    spec = parse_player("mcts:iterations=100,engine=python")
    assert spec.with_option("iterations", "4000").text == "mcts:engine=python,iterations=4000"
    assert spec.with_option("c", "0.5").text == "mcts:c=0.5,engine=python,iterations=100"
    with pytest.raises(ValueError, match="unknown option 'budget'"):
        spec.with_option("budget", "3")


def test_random_players_with_one_seed_play_alike() -> None:
    state = make("connect4")
    first, second = parse_player("random").build(seed=4), parse_player("random").build(seed=4)
    played = [first.choose(state) for _ in range(20)]
    assert played == [second.choose(state) for _ in range(20)]
    # The seed draws random moves: not one move every time, nor the same moves for another seed.
    assert len(set(played)) > 1
    other = parse_player("random").build(seed=5)
    assert [other.choose(state) for _ in range(20)] != played


def test_human_player_asks_until_a_legal_move() -> None:
    answers = iter(["z9", "b2", "a1"])
    shown: list[str] = []
    player = HumanPlayer(read=lambda prompt: next(answers), write=shown.append)
    state = make("tictactoe")
    state.play("b2")
    player.start(make("tictactoe"))
    assert player.choose(state) == state.parse_move("a1")
    assert any("not a move" in line for line in shown)
    assert any("not legal" in line for line in shown)


def test_human_player_has_a_forced_pass_played_and_said() -> None:
    # Before, the person was asked, and a placement got "legal moves: pass".
    def read(prompt: str) -> str:
        raise AssertionError(f"asked {prompt!r} at a forced pass")

    state = make("othello")
    for move in OTHELLO_WHITE_MUST_PASS.split():
        state.play(move)
    shown: list[str] = []
    move = HumanPlayer(read=read, write=shown.append).choose(state)
    assert state.move_to_str(move) == "pass"
    assert shown[-1] == "White (you) has no legal move and passes."


@pytest.mark.parametrize("answer", ["quit", EOFError])
def test_human_player_quits_as_an_interrupt(answer: object) -> None:
    def read(prompt: str) -> str:
        if answer is EOFError:
            raise EOFError
        return str(answer)

    with pytest.raises(KeyboardInterrupt):
        HumanPlayer(read=read, write=lambda line: None).choose(make("tictactoe"))
