// The mctslab board: one game per browser tab, the AI's thinking streamed over a WebSocket.
"use strict";

// Every string the page shows, in each language.
const STRINGS = {
  en: {
    other_language: "中文",
    tagline: "Monte Carlo Tree Search: play against it and watch it think",
    new_game: "New game",
    game: "Game",
    strength: "AI strength, per move",
    seconds: "seconds",
    simulations: "simulations",
    sims_label: "This search",
    your_side: "You play",
    side_first: "{name} (moves first)",
    side_second: "{name} (moves second)",
    start: "Start new game",
    record: "Game record",
    save: "Save",
    load: "Load",
    pass: "Pass",
    undo: "Undo",
    hint: "Hint",
    retry: "Ask the AI again",
    stop: "Stop and play",
    stop_hint: "Stop",
    analysis: "AI analysis",
    best_move: "Best move",
    pv: "Main line",
    speed: "Speed",
    move: "Move",
    visits: "Visits",
    visits_help: "Visits to each move, counting the tree kept from the earlier searches of this game",
    share: "Share",
    score: "Score",
    score_help: "Expected score for the side to move: a win counts 1, a draw ½",
    show_tree: "Show search tree",
    moves_played: "Moves",
    search_tree: "Search tree of the AI's last move",
    close: "Close",
    game_gomoku: "Gomoku",
    game_othello: "Othello",
    game_connect4: "Connect Four",
    game_tictactoe: "Tic-tac-toe",
    game_countdown: "Countdown",
    param_size: "Board size",
    param_k: "Stones in a row to win",
    param_start: "Count down from",
    your_turn: "Your turn ({name})",
    must_pass: "You have no legal move: pass",
    ai_thinking: "The AI ({name}) is thinking",
    ai_failed: "The AI's search failed",
    hint_thinking: "Looking for a hint",
    queued: "Waiting for a free search slot ({n} searches are running)",
    you_win: "You win! ({reason})",
    ai_wins: "The AI wins ({reason})",
    draw: "Draw ({reason})",
    title_ai_live: "The AI's search for {name}, live",
    title_hint_live: "Hint search for {name}, live",
    title_ai_last: "The AI's last move: {move}",
    title_hint: "Hint for you: {move}",
    title_none: "The AI's thinking appears here while it searches.",
    sims_value: "{sims} simulations in {seconds} s",
    proven: "proven, no search needed",
    per_second: "{n} / s",
    stopped_early: "stopped early",
    engine_note: "Engine: {engine}. Each browser tab plays its own game.",
    no_dot: "Graphviz's dot program is not installed on the server, so the tree cannot be drawn here. Install graphviz (apt-get install graphviz) and reload; meanwhile the DOT source can be downloaded.",
    download_dot: "Download the DOT source",
    no_tree: "This engine keeps no snapshot of its tree; serve with --engine python to draw it.",
    count_next: "Next number",
    count_rule: "Say one, two or three numbers counting down; whoever says 1 wins.",
    count_say: "Say {numbers}",
    connection_lost: "Connection to the server lost; reconnecting…",
    game_gone: "This game is no longer on the server; a new one was started.",
    game_closed: "This game is no longer on the server: start a new game to play on.",
    game_evicted: "The server was full, so this game was closed to make room for another: start a new game to play on.",
    bad_file: "Could not read the file: {error}",
    player_X: "X",
    player_O: "O",
    player_connect4_X: "Red X",
    player_connect4_O: "Yellow O",
    player_Black: "Black",
    player_White: "White",
    "player_Player 1": "Player 1",
    "player_Player 2": "Player 2",
    reason_in_a_row: "{n} in a row",
    reason_full: "board full",
    reason_more: "more discs, {score}",
    reason_wipe: "wipe-out, {score}",
    reason_equal: "equal discs, {score}",
    disc_score: "{first} {a} – {second} {b}",
    column_move: "col {move}",
    board_label: "Board: the arrow keys choose a cell, Enter or Space plays there ({cell})",
    empty_cell: "empty",
    not_legal_here: "Not a legal move here.",
    reason_said: "{name} said 1",
  },
  zh: {
    other_language: "English",
    tagline: "蒙特卡洛树搜索：与它对弈，看它思考",
    new_game: "新对局",
    game: "游戏",
    strength: "AI 强度（每步）",
    seconds: "秒",
    simulations: "次模拟",
    sims_label: "本次搜索",
    your_side: "你执",
    side_first: "{name}（先手）",
    side_second: "{name}（后手）",
    start: "开始新对局",
    record: "棋谱",
    save: "保存",
    load: "载入",
    pass: "停一手",
    undo: "悔棋",
    hint: "提示",
    retry: "让 AI 再试一次",
    stop: "停止并落子",
    stop_hint: "停止",
    analysis: "AI 分析",
    best_move: "最佳着法",
    pv: "主要变化",
    speed: "速度",
    move: "着法",
    visits: "访问",
    visits_help: "每个着法的访问次数，包括本局之前的搜索保留下来的树",
    share: "占比",
    score: "得分",
    score_help: "轮到走棋一方的期望得分：赢计 1，和计 ½",
    show_tree: "查看搜索树",
    moves_played: "着法记录",
    search_tree: "AI 上一步的搜索树",
    close: "关闭",
    game_gomoku: "五子棋",
    game_othello: "黑白棋",
    game_connect4: "四子棋",
    game_tictactoe: "井字棋",
    game_countdown: "倒数报数",
    param_size: "棋盘大小",
    param_k: "连成几子获胜",
    param_start: "从几开始倒数",
    your_turn: "轮到你了（{name}）",
    must_pass: "你无子可下：请停一手",
    ai_thinking: "AI（{name}）正在思考",
    ai_failed: "AI 的搜索失败了",
    hint_thinking: "正在寻找提示",
    queued: "正在等待空闲的搜索位置（已有 {n} 个搜索在运行）",
    you_win: "你赢了！（{reason}）",
    ai_wins: "AI 获胜（{reason}）",
    draw: "平局（{reason}）",
    title_ai_live: "AI 为{name}搜索中（实时）",
    title_hint_live: "为{name}搜索提示（实时）",
    title_ai_last: "AI 上一步：{move}",
    title_hint: "给你的提示：{move}",
    title_none: "AI 搜索时，它的思考会实时显示在这里。",
    sims_value: "{sims} 次模拟，用时 {seconds} 秒",
    proven: "已证明，无需搜索",
    per_second: "{n} 次 / 秒",
    stopped_early: "提前停止",
    engine_note: "引擎：{engine}。每个浏览器标签页各下一局。",
    no_dot: "服务器上没有安装 Graphviz 的 dot 程序，无法在此绘制搜索树。请安装 graphviz（apt-get install graphviz）后刷新；现在仍可下载 DOT 源文件。",
    download_dot: "下载 DOT 源文件",
    no_tree: "此引擎不保留搜索树快照；用 --engine python 启动服务即可查看。",
    count_next: "下一个数",
    count_rule: "每次倒数报一到三个数，谁报到 1 谁赢。",
    count_say: "报 {numbers}",
    connection_lost: "与服务器的连接已断开，正在重连…",
    game_gone: "服务器上已没有这局棋，已开始新对局。",
    game_closed: "服务器上已没有这局棋：开始新对局即可继续下棋。",
    game_evicted: "服务器已满，这局棋已被关闭，为其他对局腾出位置：开始新对局即可继续下棋。",
    bad_file: "无法读取文件：{error}",
    player_X: "X",
    player_O: "O",
    player_connect4_X: "红方 X",
    player_connect4_O: "黄方 O",
    player_Black: "黑方",
    player_White: "白方",
    "player_Player 1": "玩家 1",
    "player_Player 2": "玩家 2",
    reason_in_a_row: "{n} 子连成一线",
    reason_full: "棋盘已满",
    reason_more: "棋子更多，{score}",
    reason_wipe: "全部吃光，{score}",
    reason_equal: "棋子数相同，{score}",
    disc_score: "{first} {a} – {second} {b}",
    column_move: "第 {move} 列",
    board_label: "棋盘：用方向键选择位置，按回车或空格在此落子（{cell}）",
    empty_cell: "空",
    not_legal_here: "此处不能落子。",
    reason_said: "{name}报到了 1",
  },
};

// How each game's end reason (English, from the server) maps onto the dictionary.
const REASONS = [
  [/^three in a row$/, () => ["reason_in_a_row", { n: 3 }]],
  [/^four in a row$/, () => ["reason_in_a_row", { n: 4 }]],
  [/^(\d+) in a row$/, (m) => ["reason_in_a_row", { n: m[1] }]],
  [/^board full$/, () => ["reason_full", {}]],
  [/^more discs, (\d+) to (\d+)$/, (m, w) => ["reason_more", { score: discScore(m, w) }]],
  [/^a wipe-out, (\d+) to (\d+)$/, (m, w) => ["reason_wipe", { score: discScore(m, w) }]],
  [/^equal discs, (\d+) to (\d+)$/, (m, w) => ["reason_equal", { score: discScore(m, w) }]],
  [/^(.*) said 1$/, (m) => ["reason_said", { name: playerName(m[1]) }]],
];

// Stone colours of the two players, per game.
const COLOURS = {
  gomoku: ["#151515", "#f8f8f8"],
  othello: ["#151515", "#f8f8f8"],
  tictactoe: ["#d1495b", "#2e86ab"],
  connect4: ["#e63946", "#f2c14e"],
  countdown: ["#2e86ab", "#d1495b"],
};
const STRENGTH_DEFAULTS = { seconds: 1, simulations: 5000 };
const SVG = "http://www.w3.org/2000/svg";
const CELL = 40;
const MARGIN = 26;
// On big boards only the most visited moves get their share written on them.
const LABELLED_MOVES = 10;
// How the arrow keys move the keyboard's cell on the board.
const STEPS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
// Countdown shows at most this many of the numbers said.
const SHOWN_NUMBERS = 60;

const $ = (selector) => document.querySelector(selector);
let lang = localStorage.getItem("mctslab.lang") || (navigator.language.startsWith("zh") ? "zh" : "en");
let catalog = null;
let game = null; // the latest snapshot of this tab's game
let live = null; // the latest progress message of the running search
let socket = null;
let aiAsked = null;
let pending = false; // a request the person made is on its way to the server
let askingAi = null; // the position (as aiAsked) whose AI move is asked for, while the request is on its way
let aiLost = null; // the position (as aiAsked) whose AI request got no answer (a network failure)
let replacing = null; // the id of this tab's game that its new game is replacing
let replacedClosed = false; // whether that game's stream said it was deleted meanwhile
let cursor = null; // the board's cell that the keyboard is on, [row, column]

function t(key, vars = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

// Connect Four's notation calls its sides X and O, but the board shows red and yellow discs.
function playerName(name, gameName = game?.settings.game) {
  const key = `player_${gameName}_${name}`;
  return t(key in STRINGS.en ? key : `player_${name}`);
}

// Othello's score "48 to 16" is the winner's discs, then the loser's: say whose.
function discScore([, a, b], winner) {
  const names = game.players.map((name) => playerName(name));
  const [first, second] = winner === 1 ? [names[1], names[0]] : names;
  return t("disc_score", { first, a, second, b });
}

// Connect Four's moves are bare column numbers, which a numbered list makes hard to read.
function moveLabel(move) {
  return game.settings.game === "connect4" ? t("column_move", { move }) : move;
}

function reasonText(reason, winner) {
  for (const [pattern, build] of REASONS) {
    const match = reason.match(pattern);
    if (match) {
      const [key, vars] = build(match, winner);
      return t(key, vars);
    }
  }
  return reason;
}

function number(value) {
  return Math.round(value).toLocaleString(lang === "zh" ? "zh-CN" : "en-US");
}

// One decimal; a share or score that is not exactly 0 or 1 never reads as one.
function percent(value) {
  if (value > 0 && value < 0.0005) return "<0.1%";
  if (value < 1 && value > 0.9995) return ">99.9%";
  return `${(100 * value).toFixed(value === 0 || value === 1 ? 0 : 1)}%`;
}

// -- talking to the server ------------------------------------------------------
async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  if (response.status === 204) return null;
  const text = await response.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = { error: text || response.statusText };
  }
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

// What the person asks for, one request at a time: a second click before the first's answer
// is ignored. It would be refused ("It is the AI's turn" after a move), or do it twice (a
// double click on Undo took back two moves; on "Start new game", made a game left behind).
async function exclusive(task) {
  if (pending) return;
  pending = true;
  try {
    await task();
  } finally {
    pending = false;
  }
}

// An answer that comes once the tab shows another game (started meanwhile) is dropped: it
// would bring the old game back, deleted by then. So is an error while the game is being
// replaced: the server may have deleted it already ("Unknown game id"), and the message
// would stay on the new game.
//
// Whether the request was answered without an error.
async function send(path, body) {
  const id = game.id;
  showMessage("");
  try {
    const snapshot = await api("POST", `/api/games/${id}/${path}`, body);
    if (game.id === id) accept(snapshot);
    return true;
  } catch (error) {
    if (game.id === id && id !== replacing) showMessage(error.message);
    return false;
  }
}

function command(path, body) {
  return exclusive(() => send(path, body));
}

function playMove(id) {
  return command("moves", { move: id });
}

function connect(id) {
  if (socket) {
    socket.onclose = null;
    socket.close();
  }
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/api/games/${id}/live`);
  socket = ws;
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (!game || game.id !== id) return;
    if (message.type === "state") {
      accept(message.game);
    } else if (message.type === "progress" && message.version === game.version) {
      live = message;
      renderBoard();
      renderAnalysis();
    } else if (message.type === "closed" && message.reason === "deleted" && id === replacing) {
      // This tab's own new game replaces it, most likely: the new one is on its way (if its
      // request fails, the game was deleted by another tab, and the failure says so below).
      ws.onclose = null;
      replacedClosed = true;
    } else if (message.type === "error" || message.type === "closed") {
      // The game is gone (deleted by another tab sharing this one's storage, closed to make
      // room, or the server restarted): this socket's end is expected, not a lost connection.
      // No game is started in its place until the person asks: on a full server it would
      // close another tab's game, whose page would do the same, and so on.
      ws.onclose = null;
      markClosed(message.reason ?? "gone");
    }
  };
  ws.onclose = () => {
    if (socket !== ws || !game || game.id !== id) return;
    showMessage(t("connection_lost"));
    setTimeout(() => {
      if (socket === ws) connect(id);
    }, 1000);
  };
  ws.onopen = () => {
    if ($("#message").textContent === t("connection_lost")) showMessage("");
  };
}

// The tab's game is gone from the server (for the reason given): shown so, nothing to wait for.
function markClosed(reason) {
  game = { ...game, closed: reason, searching: null, queued: false };
  live = null;
  render();
}

// A snapshot from the server (HTTP answer or live stream); older ones, and any of a game
// since closed, are ignored.
function accept(snapshot) {
  if (game && snapshot.id === game.id && (game.closed || snapshot.version < game.version)) return;
  const changedGame = !game || game.id !== snapshot.id;
  game = snapshot;
  if (!game.searching) live = null;
  if (changedGame) {
    sessionStorage.setItem("mctslab.game", game.id);
    cursor = null; // its board may be another size
    connect(game.id);
  }
  if (game.error) showMessage(game.error);
  render();
  askAi();
}

function aiToMove() {
  return !game.closed && game.to_move !== null && game.to_move !== game.settings.human;
}

// The AI's search failed in this position: it is asked again only when the person says so.
function aiFailed() {
  const lost = aiLost === `${game.id}:${game.version}`;
  return aiToMove() && !game.searching && (game.error !== null || lost);
}

// When it is the AI's turn, ask it to move (once per position).
function askAi() {
  const key = `${game.id}:${game.version}`;
  if (!aiToMove() || game.searching || game.error || aiAsked === key) return;
  aiAsked = key;
  // not the person's request: it may come while one of theirs is on its way
  askingAi = key;
  renderButtons();
  send("ai").then((answered) => {
    // refused or lost: the person may ask again (the button), the page does not on its own
    if (!answered) aiLost = key;
    if (askingAi === key) askingAi = null;
    renderStatus();
    renderButtons();
  });
}

// -- the new-game form ------------------------------------------------------------
function fillForm(settings) {
  const select = $("#game");
  select.replaceChildren(
    ...catalog.games.map((entry) => new Option(t(`game_${entry.name}`), entry.name)),
  );
  select.value = settings ? settings.game : "gomoku";
  renderParams(settings ? settings.params : null);
  if (settings) {
    const unit = settings.simulations ? "simulations" : "seconds";
    $("#strength-unit").value = unit;
    $("#strength").value = settings[unit];
    renderSides(settings.human);
  }
  setStrengthLimits();
}

function currentEntry() {
  return catalog.games.find((entry) => entry.name === $("#game").value);
}

function renderParams(values) {
  const box = $("#params");
  const entry = currentEntry();
  box.replaceChildren();
  for (const param of entry.params) {
    const label = document.createElement("label");
    const caption = document.createElement("span");
    caption.textContent = t(`param_${param.name}`);
    const input = document.createElement("input");
    Object.assign(input, { type: "number", min: param.min, max: param.max, step: 1, required: true });
    input.name = param.name;
    let value = param.default;
    if (values) value = values[param.name] ?? (param.name === "size" ? values.width : undefined) ?? value;
    input.value = value;
    label.append(caption, input);
    box.append(label);
  }
  const size = box.querySelector("input[name=size]");
  const k = box.querySelector("input[name=k]");
  if (size && k) {
    const clamp = () => {
      // a size half typed ("1" on the way to "15") is no size yet: k would become 1
      if (!size.checkValidity()) return;
      k.max = size.value;
      if (Number(k.value) > Number(size.value)) k.value = size.value;
    };
    size.addEventListener("input", clamp);
    clamp();
  }
  renderSides($("#side").value === "1" ? 1 : 0);
}

function renderSides(human) {
  const entry = currentEntry();
  const [first, second] = entry.players.map((name) => playerName(name, entry.name));
  $("#side").replaceChildren(
    new Option(t("side_first", { name: first }), "0"),
    new Option(t("side_second", { name: second }), "1"),
  );
  $("#side").value = String(human);
}

function setStrengthLimits() {
  const unit = $("#strength-unit").value;
  const input = $("#strength");
  input.min = unit === "seconds" ? 0.05 : 1;
  input.max = catalog.limits[unit];
  input.step = unit === "seconds" ? 0.05 : 1;
}

function formRequest() {
  const params = {};
  for (const input of $("#params").querySelectorAll("input")) params[input.name] = Number(input.value);
  const unit = $("#strength-unit").value;
  const request = { game: $("#game").value, params, human: Number($("#side").value) };
  request[unit] = unit === "seconds" ? Number($("#strength").value) : Math.round(Number($("#strength").value));
  return request;
}

// `notice` stays shown once the game has started (why this tab got a new game).
// The tab's old game is replaced: deleted before the new one is made, so that on a full server
// it makes the room rather than another tab's game.
function newGame(request = formRequest(), notice = "") {
  return exclusive(async () => {
    showMessage(notice);
    // The old game is deleted only once the new one's request is found good.
    replacing = game ? game.id : null;
    try {
      const snapshot = await api("POST", "/api/games", game ? { ...request, replace: game.id } : request);
      game = null;
      live = null;
      accept(snapshot);
      fillForm(snapshot.settings);
    } catch (error) {
      showMessage(error.message);
      if (replacedClosed) markClosed("deleted"); // the stream said so while the new game was asked for
    } finally {
      replacing = null;
      replacedClosed = false;
    }
  });
}

// -- drawing ------------------------------------------------------------------------
function render() {
  renderStatus();
  renderBoard();
  renderAnalysis();
  renderMoves();
  renderButtons();
}

function humanName() {
  return playerName(game.players[game.settings.human]);
}

function aiName() {
  return playerName(game.players[1 - game.settings.human]);
}

function renderStatus() {
  const status = $("#status");
  status.className = "";
  let text;
  let state;
  if (game.closed) {
    state = "closed";
    text = t(game.closed === "evicted" ? "game_evicted" : "game_closed");
  } else if (game.outcome) {
    const reason = reasonText(game.outcome.reason, game.outcome.winner);
    state = "over";
    status.className = "over";
    if (game.outcome.winner === null) text = t("draw", { reason });
    else if (game.outcome.winner === game.settings.human) text = t("you_win", { reason });
    else text = t("ai_wins", { reason });
  } else if (game.queued) {
    // the server runs a few searches at once, shared by every tab: this one waits its turn
    state = "thinking";
    text = t("queued", { n: catalog.limits.searches });
  } else if (game.searching === "hint") {
    state = "thinking";
    text = t("hint_thinking");
  } else if (game.to_move === game.settings.human) {
    state = "your-turn";
    text = mustPass() ? t("must_pass") : t("your_turn", { name: humanName() });
  } else if (aiFailed()) {
    state = "failed";
    text = t("ai_failed");
  } else {
    state = "thinking";
    text = t("ai_thinking", { name: aiName() });
  }
  status.dataset.state = state;
  status.replaceChildren(element("span", { class: state === "thinking" ? "thinking" : "" }, text));
}

function element(tag, attributes = {}, text = null) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== null) node.textContent = text;
  return node;
}

function svg(tag, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== null) node.textContent = text;
  return node;
}

// Visit shares of the search being shown on the board: the live one, else the hint.
function heatShares() {
  const result = live || (game.searching ? null : game.hint);
  if (!result || !result.moves.length) return null;
  const total = result.moves.reduce((sum, move) => sum + move.visits, 0) || 1;
  const shares = new Map(result.moves.map((move) => [move.id, move.visits / total]));
  // moves arrive most visited first
  const rank = new Map(result.moves.map((move, index) => [move.id, index]));
  // Shading grows from the average share (faint) to the top share (strong), so the
  // moves the search prefers stand out even when its visits are spread evenly.
  const top = Math.max(...shares.values());
  const mean = 1 / shares.size;
  const strength = (share) => (top > mean ? Math.max(0, (share - mean) / (top - mean)) : 1);
  return { shares, rank, strength, best: live ? null : result.moves[0].id };
}

// Whether the only legal move is a pass (Othello), which has no cell to click.
function mustPass() {
  return game.legal.length === 1 && game.legal[0].move === "pass";
}

function canPlay() {
  return !game.closed && !game.outcome && !game.searching && game.to_move === game.settings.human;
}

function renderBoard() {
  const board = game.board;
  // an <svg> has no `hidden` property: its style says whether it shows
  $("#board").style.display = board.kind === "grid" ? "" : "none";
  $("#count-board").hidden = board.kind === "grid";
  if (board.kind === "grid") drawGrid(board);
  else drawCount(board);
}

function drawGrid(board) {
  const name = game.settings.game;
  const colours = COLOURS[name];
  const width = board.columns * CELL;
  const height = board.rows * CELL;
  const root = $("#board");
  root.setAttribute("viewBox", `0 0 ${width + 2 * MARGIN} ${height + 2 * MARGIN}`);
  // small boards are drawn smaller, so that their labels and pieces keep a sensible size
  root.style.setProperty("--board-max", `${Math.max(420, 64 * board.columns)}px`);
  root.dataset.game = name;
  const layers = [];
  const x = (column) => MARGIN + column * CELL;
  const y = (row) => MARGIN + row * CELL;
  const centre = (index) => index * CELL + CELL / 2;

  // the board itself, and a hint marker that shows on it
  const look = {
    gomoku: { fill: "#dcb468", line: "#5b4421", hint: "#2563eb" },
    othello: { fill: "#2f7d4f", line: "#1b4d30", hint: "#2563eb" },
    tictactoe: { fill: "#fbfbfd", line: "#2b2f3a", hint: "#2563eb" },
    connect4: { fill: "#1f5fc7", line: "#1f5fc7", hint: "#ffffff" },
  }[name];
  layers.push(svg("rect", { x: 0, y: 0, width: width + 2 * MARGIN, height: height + 2 * MARGIN, rx: 10, fill: look.fill }));
  if (name === "gomoku") {
    for (let i = 0; i < board.rows; i++) {
      layers.push(svg("line", { x1: x(0) + CELL / 2, x2: x(board.columns - 1) + CELL / 2, y1: y(i) + CELL / 2, y2: y(i) + CELL / 2, stroke: look.line, "stroke-width": 1 }));
    }
    for (let j = 0; j < board.columns; j++) {
      layers.push(svg("line", { y1: y(0) + CELL / 2, y2: y(board.rows - 1) + CELL / 2, x1: x(j) + CELL / 2, x2: x(j) + CELL / 2, stroke: look.line, "stroke-width": 1 }));
    }
  } else if (name === "othello") {
    for (let i = 0; i <= board.rows; i++) {
      layers.push(svg("line", { x1: x(0), x2: x(board.columns), y1: y(i), y2: y(i), stroke: look.line, "stroke-width": 1.5 }));
      layers.push(svg("line", { y1: y(0), y2: y(board.rows), x1: x(i), x2: x(i), stroke: look.line, "stroke-width": 1.5 }));
    }
  } else if (name === "tictactoe") {
    for (let i = 1; i < 3; i++) {
      layers.push(svg("line", { x1: x(0) + 4, x2: x(3) - 4, y1: y(i), y2: y(i), stroke: look.line, "stroke-width": 2.5, "stroke-linecap": "round" }));
      layers.push(svg("line", { y1: y(0) + 4, y2: y(3) - 4, x1: x(i), x2: x(i), stroke: look.line, "stroke-width": 2.5, "stroke-linecap": "round" }));
    }
  }

  // axis labels from the game's notation
  const labelColour = name === "othello" || name === "connect4" ? "#e8eef7" : "#3a3f4b";
  board.column_labels.forEach((label, j) => {
    layers.push(svg("text", { x: x(0) + centre(j), y: MARGIN / 2 + 4, class: "axis", fill: labelColour, "font-size": 11, "text-anchor": "middle" }, label));
  });
  board.row_labels.forEach((label, i) => {
    layers.push(svg("text", { x: MARGIN / 2, y: y(0) + centre(i) + 4, class: "axis", fill: labelColour, "font-size": 11, "text-anchor": "middle" }, label));
  });

  // the heat map of the search's visit shares
  const heat = heatShares();
  if (heat) {
    for (const [id, share] of heat.shares) {
      const alpha = (0.1 + 0.65 * heat.strength(share)).toFixed(3);
      const fill = `rgba(255, 122, 0, ${alpha})`;
      if (board.moves === "columns") {
        if (id >= board.columns) continue;
        layers.push(svg("rect", { x: x(id) + 2, y: y(0), width: CELL - 4, height, rx: 6, fill, class: "heat", "data-move": id }));
        layers.push(svg("text", { x: x(id) + CELL / 2, y: height + MARGIN + 16, "font-size": 10, "text-anchor": "middle", fill: "#fff", "font-weight": 600 }, percent(share)));
      } else {
        if (id >= board.rows * board.columns) continue;
        const [row, column] = [Math.floor(id / board.columns), id % board.columns];
        layers.push(svg("rect", { x: x(column) + 2, y: y(row) + 2, width: CELL - 4, height: CELL - 4, rx: 5, fill, class: "heat", "data-move": id }));
        if (heat.rank.get(id) < LABELLED_MOVES || board.rows * board.columns <= 64) {
          // a light halo keeps the share readable on any board colour
          const halo = { stroke: "rgba(255,255,255,0.85)", "stroke-width": 2.5, "paint-order": "stroke" };
          layers.push(svg("text", { x: x(column) + CELL / 2, y: y(row) + CELL / 2 + 4, "font-size": 10.5, "text-anchor": "middle", fill: "#1f2430", "font-weight": 600, ...halo }, percent(share)));
        }
      }
    }
  }

  // pieces
  board.cells.forEach((cells, row) => {
    cells.forEach((value, column) => {
      const cx = x(column) + CELL / 2;
      const cy = y(row) + CELL / 2;
      if (name === "connect4" && value === 0) {
        layers.push(svg("circle", { cx, cy, r: CELL * 0.4, fill: "#eef2f8" }));
      }
      if (value === 0) return;
      const player = value - 1;
      const attributes = { class: `stone p${player}`, "data-row": row, "data-column": column };
      if (name === "tictactoe") {
        const group = svg("g", attributes);
        const s = CELL * 0.28;
        if (player === 0) {
          const style = { stroke: colours[0], "stroke-width": CELL * 0.11, "stroke-linecap": "round" };
          group.append(svg("line", { x1: cx - s, y1: cy - s, x2: cx + s, y2: cy + s, ...style }));
          group.append(svg("line", { x1: cx - s, y1: cy + s, x2: cx + s, y2: cy - s, ...style }));
        } else {
          group.append(svg("circle", { cx, cy, r: s, fill: "none", stroke: colours[1], "stroke-width": CELL * 0.11 }));
        }
        layers.push(group);
      } else {
        const stroke = colours[player] === "#f8f8f8" ? "#666" : "rgba(0,0,0,0.35)";
        layers.push(svg("circle", { ...attributes, cx, cy, r: CELL * 0.42, fill: colours[player], stroke, "stroke-width": 1 }));
      }
    });
  });

  // the line that won the game
  for (const [row, column] of board.line) {
    const attributes = { fill: "none", stroke: "#f59e0b", "stroke-width": 3, class: "win" };
    if (name === "tictactoe") {
      layers.push(svg("rect", { x: x(column) + 2, y: y(row) + 2, width: CELL - 4, height: CELL - 4, rx: 6, ...attributes }));
    } else {
      layers.push(svg("circle", { cx: x(column) + CELL / 2, cy: y(row) + CELL / 2, r: CELL * 0.46, ...attributes }));
    }
  }

  // the last move and the hint
  if (board.last) {
    const [row, column] = board.last;
    const cx = x(column) + CELL / 2;
    const cy = y(row) + CELL / 2;
    if (name === "tictactoe") {
      layers.push(svg("rect", { x: x(column) + 3, y: y(row) + 3, width: CELL - 6, height: CELL - 6, rx: 4, fill: "none", stroke: "#f59e0b", "stroke-width": 1.5, class: "last" }));
    } else {
      const marker = name === "connect4" ? "#ffffff" : "#e23d28";
      layers.push(svg("circle", { cx, cy, r: CELL * 0.1, fill: marker, class: "last" }));
    }
  }
  if (heat && heat.best !== null) {
    const column = board.moves === "columns" ? heat.best : heat.best % board.columns;
    const row = board.moves === "columns" ? null : Math.floor(heat.best / board.columns);
    if (column < board.columns && (row === null || row < board.rows)) {
      const attributes = { fill: "none", stroke: look.hint, "stroke-width": 2.5, "stroke-dasharray": "5 3", class: "hint", rx: 6 };
      if (row === null) layers.push(svg("rect", { x: x(column) + 1, y: y(0), width: CELL - 2, height, ...attributes }));
      else layers.push(svg("rect", { x: x(column) + 1, y: y(row) + 1, width: CELL - 2, height: CELL - 2, ...attributes }));
    }
  }

  // the keyboard's cell, shown while the board has the keyboard's focus (style.css)
  const [cursorRow, cursorColumn] = keyCell(board);
  const cell = board.moves === "columns"
    ? moveLabel(board.column_labels[cursorColumn])
    : board.column_labels[cursorColumn] + board.row_labels[cursorRow];
  // what is on it too, where a cell holds a stone (a column is named alone)
  const value = board.moves === "columns" ? null : board.cells[cursorRow][cursorColumn];
  const content = value === null ? "" : `, ${value === 0 ? t("empty_cell") : playerName(game.players[value - 1])}`;
  root.setAttribute("aria-label", t("board_label", { cell: cell + content }));
  const attributes = { fill: "none", stroke: look.hint, "stroke-width": 3, rx: 6, class: "cursor" };
  if (board.moves === "columns") {
    layers.push(svg("rect", { x: x(cursorColumn) + 1, y: y(0), width: CELL - 2, height, ...attributes }));
  } else {
    layers.push(svg("rect", { x: x(cursorColumn) + 1, y: y(cursorRow) + 1, width: CELL - 2, height: CELL - 2, ...attributes }));
  }

  // click targets on the legal moves
  if (canPlay()) {
    // Only Othello leaves empty cells where no stone may go; mark its legal ones, since a
    // touch screen has no hover to find them.
    if (name === "othello") {
      for (const move of game.legal) {
        if (move.id >= board.rows * board.columns) continue;
        const [row, column] = [Math.floor(move.id / board.columns), move.id % board.columns];
        layers.push(svg("circle", { cx: x(column) + CELL / 2, cy: y(row) + CELL / 2, r: CELL * 0.09, fill: "rgba(0, 0, 0, 0.35)", class: "legal" }));
      }
    }
    for (const move of game.legal) {
      let target;
      if (board.moves === "columns") {
        if (move.id >= board.columns) continue;
        target = svg("rect", { x: x(move.id), y: y(0), width: CELL, height });
      } else {
        if (move.id >= board.rows * board.columns) continue;
        target = svg("rect", { x: x(move.id % board.columns), y: y(Math.floor(move.id / board.columns)), width: CELL, height: CELL });
      }
      Object.entries({ class: "target", fill: "transparent", rx: 6, "data-move": move.id }).forEach(([k, v]) => target.setAttribute(k, v));
      target.append(svg("title", {}, move.move));
      target.addEventListener("click", () => playMove(move.id));
      layers.push(target);
    }
  }
  root.replaceChildren(...layers);
}

// The cell the keyboard is on: the centre of the board at first.
function keyCell(board) {
  cursor ??= [Math.floor(board.rows / 2), Math.floor(board.columns / 2)];
  return cursor;
}

// The board without a mouse: the arrow keys move the keyboard's cell, Enter or Space plays there.
function boardKey(event) {
  const board = game?.board;
  // with a modifier, a key is the browser's (Alt+Left goes back)
  if (!board || board.kind !== "grid" || event.altKey || event.ctrlKey || event.metaKey) return;
  const [row, column] = keyCell(board);
  if (event.key in STEPS) {
    const [down, right] = STEPS[event.key];
    cursor = [
      Math.max(0, Math.min(board.rows - 1, row + down)),
      Math.max(0, Math.min(board.columns - 1, column + right)),
    ];
    renderBoard();
  } else if (event.key === "Enter" || event.key === " ") {
    const id = board.moves === "columns" ? column : row * board.columns + column;
    if (canPlay()) {
      if (game.legal.some((move) => move.id === id)) playMove(id);
      else showMessage(mustPass() ? t("must_pass") : t("not_legal_here"));
    }
  } else {
    return;
  }
  event.preventDefault();
}

// Countdown: the numbers said so far, the next one, and a button per legal move.
function drawCount(board) {
  const box = $("#count-board");
  const colours = COLOURS.countdown;
  const said = element("div", { class: "said" });
  // The numbers said, in the colour of who said them; a long count shows only its end.
  const chips = [];
  let value = board.next;
  for (let index = game.moves.length - 1; index >= 0 && chips.length < SHOWN_NUMBERS; index--) {
    for (let i = 0; i < Number(game.moves[index]); i++) {
      chips.unshift(element("span", { style: `background:${colours[index % 2]}` }, String(++value)));
    }
  }
  if (value < game.settings.params.start) said.append(element("span", { class: "more" }, "…"));
  said.append(...chips);
  const heat = heatShares();
  const choices = element("div", { class: "choices" });
  for (const move of game.legal) {
    const count = move.id + 1;
    const numbers = Array.from({ length: count }, (_, i) => board.next - i).join(", ");
    const button = element("button", { type: "button", "data-move": move.id, class: "target" });
    if (heat && heat.shares.has(move.id)) {
      const share = heat.shares.get(move.id);
      button.append(element("div", { class: "heat", style: `opacity:${(0.1 + 0.65 * heat.strength(share)).toFixed(3)}` }));
      button.append(element("span", {}, `${t("count_say", { numbers })} · ${percent(share)}`));
    } else {
      button.append(element("span", {}, t("count_say", { numbers })));
    }
    button.disabled = !canPlay();
    button.addEventListener("click", () => playMove(move.id));
    choices.append(button);
  }
  box.replaceChildren(
    element("div", { class: "muted" }, t("count_rule")),
    said,
    element("div", { class: "muted" }, game.outcome ? "" : t("count_next")),
    element("div", { class: "next" }, game.outcome ? "1" : String(board.next)),
    choices,
  );
}

// The panel beside the board: the search being shown and its figures.
function renderAnalysis() {
  let result = null;
  let mover = null;
  let title = t("title_none");
  if (live) {
    result = live;
    mover = game.to_move;
    title = t(live.search === "ai" ? "title_ai_live" : "title_hint_live", { name: playerName(game.players[mover]) });
  } else if (game.hint) {
    result = game.hint;
    mover = game.settings.human;
    title = t("title_hint", { move: result.best_move });
  } else if (game.last_search) {
    result = game.last_search;
    mover = 1 - game.settings.human;
    title = t("title_ai_last", { move: result.best_move });
  }
  $("#analysis-title").textContent = title;
  const colours = COLOURS[game.settings.game];
  const parts = [$("#winbar-0"), $("#winbar-1")];
  parts.forEach((part, player) => {
    part.style.background = colours[player];
    part.style.color = ["#f8f8f8", "#f2c14e"].includes(colours[player]) ? "#1f2430" : "#fff";
  });
  if (result) {
    const first = mover === 0 ? result.value : 1 - result.value;
    parts[0].style.width = `${100 * first}%`;
    parts[1].style.width = `${100 * (1 - first)}%`;
    parts.forEach((part, player) => {
      const share = player === 0 ? first : 1 - first;
      const label = `${playerName(game.players[player])} ${percent(share)}`;
      // a sliver too narrow for its label shows none (the label is its tooltip)
      part.firstChild.textContent = share < 0.15 ? "" : label;
      part.style.padding = share < 0.05 ? "0" : "";
      part.title = `${label} (${t("score_help")})`;
    });
    $("#best-move").textContent = result.best_move;
    $("#pv").textContent = result.pv.join(" ");
    if (result.stopped_by === "proven" && result.simulations === 0) {
      // the tree kept from earlier searches already knew the outcome: there is no speed to give
      $("#sims").textContent = t("proven");
      $("#speed").textContent = "–";
    } else {
      const sims = t("sims_value", { sims: number(result.simulations), seconds: result.seconds.toFixed(2) });
      $("#sims").textContent = result.stopped_by === "stopped" ? `${sims}, ${t("stopped_early")}` : sims;
      $("#speed").textContent = t("per_second", { n: number(result.sims_per_second) });
    }
  } else {
    parts.forEach((part, player) => {
      part.style.width = "50%";
      part.style.padding = "";
      part.firstChild.textContent = playerName(game.players[player]);
      part.title = "";
    });
    for (const id of ["#best-move", "#pv", "#sims", "#speed"]) $(id).textContent = "–";
  }
  const body = $("#top-moves tbody");
  const total = result ? result.moves.reduce((sum, move) => sum + move.visits, 0) || 1 : 1;
  body.replaceChildren(
    ...(result ? result.moves.slice(0, 8) : []).map((move) => {
      const row = element("tr");
      for (const text of [move.move, number(move.visits), percent(move.visits / total), percent(move.value)]) {
        row.append(element("td", {}, text));
      }
      return row;
    }),
  );
}

function renderMoves() {
  const list = $("#move-list");
  list.replaceChildren(...game.moves.map((move) => element("li", {}, moveLabel(move))));
  list.scrollTop = list.scrollHeight;
}

function renderButtons() {
  const idle = !game.searching;
  // While the AI's move is asked for, its search is as good as begun: an undo would be
  // refused, or come first and have the AI's request refused as out of turn.
  const asking = askingAi === `${game.id}:${game.version}`;
  $("#undo").disabled = !idle || asking || !game.can_undo || Boolean(game.closed);
  $("#hint").disabled = !canPlay();
  $("#retry").hidden = !aiFailed();
  // An AI move still waiting for a search slot has nothing to play yet: stopping would only
  // cancel it (the server does so), and the page would ask again.
  $("#stop").disabled = idle || (game.queued && game.searching === "ai");
  // stopping a hint plays nothing
  $("#stop").textContent = t(game.searching === "hint" ? "stop_hint" : "stop");
  $("#load").disabled = !idle;
  $("#save").disabled = Boolean(game.closed);
  $("#show-tree").disabled = !game.tree || Boolean(game.closed);
  $("#show-tree").title = game.last_search && !game.tree ? t("no_tree") : "";
  const pass = game.legal.find((move) => move.move === "pass");
  $("#pass").hidden = !pass;
  $("#pass").disabled = !pass || !canPlay();
  $("#engine-note").textContent = t("engine_note", { engine: catalog.engine });
}

function applyLanguage() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
  $("#language").textContent = t("other_language");
  if ($("#game").options.length) {
    const keep = { game: $("#game").value, side: $("#side").value, params: formRequest().params };
    fillForm(null);
    $("#game").value = keep.game;
    renderParams(keep.params);
    renderSides(Number(keep.side));
  }
  if (game) render();
}

// -- the search tree ------------------------------------------------------------------
async function showTree() {
  const body = $("#tree-body");
  const dot = `/api/games/${game.id}/tree.dot`;
  const link = element("a", { href: dot, download: "search-tree.dot" }, t("download_dot"));
  const unavailable = () => body.replaceChildren(element("p", { class: "note" }, t("no_dot")), link);
  body.replaceChildren();
  $("#tree-dialog").showModal();
  if (!catalog.dot) {
    unavailable();
    return;
  }
  let drawing;
  try {
    const response = await fetch(`/api/games/${game.id}/tree.svg`, { cache: "no-store" });
    if (!response.ok) throw new Error(response.statusText);
    drawing = new DOMParser().parseFromString(await response.text(), "image/svg+xml").documentElement;
  } catch {
    unavailable();
    return;
  }
  // Drawn in the page rather than as an image, so that the root can be found: a wide tree
  // would otherwise open at its left edge, with the root (at the top, centred over its
  // children) off-screen. Graphviz writes the nodes in the order given, the root first.
  drawing.setAttribute("role", "img");
  drawing.setAttribute("aria-label", t("search_tree"));
  body.replaceChildren(drawing);
  const root = drawing.querySelector("g.node");
  if (root) {
    const node = root.getBoundingClientRect();
    const view = body.getBoundingClientRect();
    body.scrollLeft += node.left + node.width / 2 - (view.left + view.width / 2);
  }
}

// -- records ------------------------------------------------------------------------------
async function saveRecord() {
  try {
    const response = await fetch(`/api/games/${game.id}/record`);
    if (!response.ok) throw new Error((await response.json()).error);
    const blob = new Blob([await response.text()], { type: "text/plain" });
    const link = element("a", { href: URL.createObjectURL(blob), download: `mctslab-${game.settings.game}.txt` });
    link.click();
    URL.revokeObjectURL(link.href);
  } catch (error) {
    showMessage(error.message);
  }
}

async function loadRecord(file) {
  let text;
  try {
    text = await file.text();
  } catch (error) {
    showMessage(t("bad_file", { error: error.message }));
    return;
  }
  const request = formRequest();
  await newGame({ record: text, human: request.human, seconds: request.seconds, simulations: request.simulations });
}

function showMessage(text) {
  $("#message").textContent = text;
}

// -- start ----------------------------------------------------------------------------------
async function main() {
  catalog = await api("GET", "/api/catalog");
  fillForm(null);
  applyLanguage();
  $("#strength").value = STRENGTH_DEFAULTS.seconds;
  $("#language").addEventListener("click", () => {
    lang = lang === "zh" ? "en" : "zh";
    localStorage.setItem("mctslab.lang", lang);
    applyLanguage();
  });
  $("#game").addEventListener("change", () => renderParams(null));
  $("#strength-unit").addEventListener("change", () => {
    $("#strength").value = STRENGTH_DEFAULTS[$("#strength-unit").value];
    setStrengthLimits();
  });
  $("#new-game-form").addEventListener("submit", (event) => {
    event.preventDefault();
    newGame();
  });
  // with the version seen, so that the server refuses to take back more than the person saw
  $("#undo").addEventListener("click", () => command("undo", { version: game.version }));
  $("#hint").addEventListener("click", () => command("hint"));
  $("#retry").addEventListener("click", () => command("ai"));
  $("#stop").addEventListener("click", () => {
    api("POST", `/api/games/${game.id}/stop`).catch((error) => showMessage(error.message));
  });
  $("#pass").addEventListener("click", () => {
    const pass = game.legal.find((move) => move.move === "pass");
    if (pass) playMove(pass.id);
  });
  $("#board").addEventListener("keydown", boardKey);
  $("#show-tree").addEventListener("click", showTree);
  $("#close-tree").addEventListener("click", () => $("#tree-dialog").close());
  $("#save").addEventListener("click", saveRecord);
  $("#load").addEventListener("click", () => $("#load-file").click());
  $("#load-file").addEventListener("change", (event) => {
    const [file] = event.target.files;
    event.target.value = "";
    if (file) loadRecord(file);
  });

  const stored = sessionStorage.getItem("mctslab.game");
  let notice = "";
  if (stored) {
    try {
      const snapshot = await api("GET", `/api/games/${stored}`);
      accept(snapshot);
      fillForm(snapshot.settings);
      return;
    } catch {
      sessionStorage.removeItem("mctslab.game");
      notice = t("game_gone");
    }
  }
  await newGame(formRequest(), notice);
}

main().catch((error) => showMessage(error.message));
