"""The ``margin`` command line."""

from __future__ import annotations

import argparse
import difflib
import getpass
import io
import json
import os
import re
import shutil
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from margin.core import SYSTEMS, RuleError, command_schema, get_system, parse_command
from margin.core.authority import GM_SEAT, Seat, author_seat
from margin.core.carry import carried
from margin.core.commands import EndSession
from margin.core.dicecheck import DiceReport, check_dice
from margin.core.dicecheck import report_lines as dice_lines
from margin.core.state import TableState, character_id
from margin.events import (
    ConnectionLost,
    DecodeError,
    Store,
    StoreError,
    TableBusy,
    display_name,
    holds_table,
    is_url,
    open_store,
    short_name,
    table_exists,
)
from margin.events.jsonl import export, import_table
from margin.events.salvage import Intact, find_intact, salvage
from margin.events.signing import BadKey, public_key
from margin.events.sqlite import clear_partials
from margin.tui.host.limits import Limits, parse_size
from margin.tui.table import startup
from margin.tui.table.keys import sign_as_gm
from margin.tui.table.reader import LogRow, View, open_view, player_id
from margin.tui.table.resolve import input_lines
from margin.tui.table.table import Table, new_command_id
from margin.tui.text import render
from margin.tui.text.state import state_data, state_lines

if TYPE_CHECKING:
    from margin.core.recap import Recap


class UsageError(Exception):
    """Bad arguments; printed as one line."""


def _fail(message: str, code: int = 1) -> NoReturn:
    sys.stderr.write(f"margin: {message}\n")
    raise SystemExit(code)


def _parse_options(system: str, pairs: Sequence[str]) -> dict[str, Any]:
    sys_ = get_system(system)
    out: dict[str, Any] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq:
            raise UsageError(f"--option {pair!r}: expected NAME=VALUE")
        out[name.strip()] = sys_.option(name.strip()).parse(value)
    return out


# -- commands ---------------------------------------------------------------


def cmd_new(args: argparse.Namespace) -> int:
    if args.from_ is None:
        if args.system is None:
            raise UsageError("new: give --system ID (or --from TABLE to continue one)")
        options = _parse_options(args.system, args.option)
        Table.create(args.path, args.system, options, title=args.title).close()
        print(f"created {display_name(args.path)} ({args.system})")
        return 0
    old = Table.open(args.from_, readonly=True)
    try:
        # the new table carries what OLD's log says, signed as this GM: they vouch for it
        sign_as_gm(old.store).vouch(old.store.last_seq)
        state = old.state
    finally:
        old.close()
    source = display_name(args.from_)
    if args.system is not None and args.system != state.system:
        raise UsageError(
            f"new: {source} is a {state.system} table; --system {args.system} cannot continue it"
        )
    options = {**state.options, **_parse_options(state.system, args.option)}
    table = Table.create(args.path, state.system, options, title=args.title or state.title)
    try:
        drafts = carried(state, short_name(args.from_), table.projection.seq)
        if drafts:
            table.store.append(drafts, table.projection.seq, command=new_command_id())
    finally:
        table.close()
    print(
        f"created {display_name(args.path)} ({state.system}) from {source}: "
        f"{len(state.characters)} characters as they stand, its options and macros"
    )
    return 0


def cmd_do(args: argparse.Namespace) -> int:
    if args.schema:
        if args.system:
            get_system(args.system)
        print(json.dumps(command_schema(args.system), indent=2))
        return 0
    if not args.path:
        raise UsageError("do: give a table PATH (or --schema)")
    seat = _seat(args)
    table = Table.open(args.path)
    try:
        return _run_commands(table, args.author or "gm", seat)
    finally:
        table.close()


def _seat(args: argparse.Namespace) -> Seat:
    """The seat ``margin do`` gives its commands from: the GM's, or ``--as NAME``'s, a
    player at this account."""
    if args.as_ is None:
        return GM_SEAT
    if args.author is not None:
        raise UsageError(
            f"do: --author is the GM's to give; a player's seat (--as {args.as_}) writes as itself"
        )
    if args.as_.strip().lower() == "gm":
        raise UsageError("do: --as names a player's character; the GM's seat is margin do alone")
    return Seat(args.as_.strip(), "local", getpass.getuser())


def _run_commands(table: Table, author: str, seat: Seat = GM_SEAT) -> int:
    """Answer each line of standard input as soon as its command is on disk.

    A command waits its turn while other processes write the table; one
    that other writers, or a lost connection, kept from the table is refused
    alone. Once the table cannot be written (a full disk, a read-only file)
    the line that met it and every line after it are answered with the reason.
    """
    failed = False
    stopped: str | None = None
    out = sys.stdout
    for lineno, line in enumerate(input_lines(sys.stdin), 1):
        if not line.strip():
            continue
        if stopped is not None:
            reply: dict[str, Any] = {"error": f"line {lineno}: not run: {stopped}"}
        else:
            reply, stopped = _run_line(table, line, lineno, author, seat)
        failed = failed or "error" in reply
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 1 if failed else 0


def _run_line(
    table: Table, line: bytes, lineno: int, author: str, seat: Seat
) -> tuple[dict[str, Any], str | None]:
    """The reply to line ``lineno``'s command, run; and, once the table cannot be written,
    why (None while it can)."""
    try:
        command = parse_command(table.state.system, line)
        records = table.execute(command, author=author, seat=seat)
        seqs = [records[0].seq, records[-1].seq]
        return {"ok": True, "seq": seqs, "command": records[0].command}, None
    except (RuleError, ConnectionLost, TableBusy) as exc:
        # a busy table or a lost connection refuses this command only: the next
        # one waits its turn again (the store has reconnected)
        return {"error": f"line {lineno}: {exc}"}, None
    except StoreError as exc:
        return {"error": f"line {lineno}: {exc}"}, str(exc)
    except Exception as exc:  # a bug in one command must not stop a bot's conversation
        return {"error": f"line {lineno}: margin failed ({type(exc).__name__}: {exc})"}, None


def _view(args: argparse.Namespace) -> View:
    """The table ``args.path`` read as the GM, or as the player ``--as`` names."""
    return open_view(args.path, name=args.as_)


def cmd_log(args: argparse.Namespace) -> int:
    view = _view(args)
    try:
        if args.about:
            view.only = _about(view, args.about)
        want = (args.grep or "").lower()  # nothing wanted: every line holds it
        for start in range(0, view.log_len(), LOG_CHUNK):
            for row, data in view.entries(start, start + LOG_CHUNK):
                if want in row.text.lower():
                    sys.stdout.write(_log_json(row, data) if args.json else _log_line(row, view))
    finally:
        view.table.close()
    return 0


#: log rows read at a time by ``margin log``
LOG_CHUNK = 500


def _log_line(row: LogRow, view: View) -> str:
    mark = " (undone)" if row.undone else ""
    secret = " [secret]" if row.secret and not view.lens else ""
    return f"{row.number:>6}  {row.at[11:19]}  {row.author:<8} {row.text}{secret}{mark}\n"


def _log_json(row: LogRow, data: dict[str, Any]) -> str:
    flat = {k: v for k, v in data.items() if k != "event"}
    kind = str(data["event"].get("type", "")).rpartition(".")[2]
    for name, value in data["event"].items():
        # an undo's command (a redo's) is the one it undid: it goes by its event's
        # name, so that "command" is every record's own
        flat[f"{kind}_{name}" if name == "command" else name] = value
    flat["undone"] = row.undone
    return json.dumps(flat) + "\n"


def _about(view: View, name: str) -> str:
    """The id of the character ``--about`` names, among those the reader may see."""
    shown = view.state().characters.values()
    for char in shown:
        if char.id == character_id(name) or char.name.lower() == name.lower():
            return char.id
    names = ", ".join(sorted(c.name for c in shown)) or "none"
    raise UsageError(f"--about {name!r}: no such character (characters: {names})")


def _state_for(view: View, args: argparse.Namespace) -> TableState:
    """The state the reader sees at record ``--at`` (their own numbering), or now."""
    if args.at is not None:
        last = view.last_number()
        if not 1 <= args.at <= last:
            raise UsageError(f"--at {args.at}: the table has records 1..{last}")
    view.set_corrected(args.corrected)
    if args.at is not None:
        view.goto(view.position_of(args.at))
    return view.state()


def cmd_state(args: argparse.Namespace) -> int:
    view = _view(args)
    try:
        state = _state_for(view, args)
    finally:
        view.table.close()
    data = state_data(state)
    if args.json:
        print(json.dumps(data))
    else:
        print("\n".join(state_lines(display_name(args.path), state, data)))
    return 0


def _key(args: argparse.Namespace) -> str | None:
    if args.key is None:
        return None
    try:
        return public_key(args.key)
    except BadKey as exc:
        raise UsageError(str(exc)) from None


def cmd_verify(args: argparse.Namespace) -> int:
    key = _key(args)
    name = display_name(args.path)
    exported = _is_export(args.path)
    store = _export_store(args.path) if exported else open_store(args.path, readonly=True)
    try:
        verdict = store.check(key)
        where = "from the export" if exported else store.location()
        if verdict.bad is not None:
            _fail(f"{name}: record {verdict.bad} {verdict.reason}")
        report = check_dice(store.records()) if args.dice else None
        authors = _authors(store)
    finally:
        store.close()
    signed = verdict.signatures.describe()
    print(f"{name}: {verdict.records} records checked {where}; chain intact; {signed}")
    if authors:
        print(f"{name}: written by " + "; ".join(f"{a}: {n}" for a, n in authors.items()))
    return 0 if report is None else _dice_verdict(name, report)


def _dice_verdict(name: str, report: DiceReport) -> int:
    """``margin verify --dice``'s report on a table's dice, and its exit status."""
    for line in dice_lines(report):
        print(line)
    for problem in report.problems:
        sys.stderr.write(f"margin: {name}: dice: {problem}\n")
    return 1 if report.problems else 0


def _authors(store: Store) -> dict[str, int]:
    """How many records each author wrote, when players' seats wrote any (else empty)."""
    found: Counter[str] = Counter(r.author for r in store.records())
    if all(author_seat(a) is None for a in found):
        return {}
    return {a: found[a] for a in sorted(found, key=lambda a: (a != "gm", a))}


def _is_export(path: str) -> bool:
    """Whether ``path`` names an export (JSON Lines) rather than a table.

    A table is known through SQLite, never by opening it by hand: this process (a
    screen, a test running margin in itself) may hold a connection to it, whose
    locks closing any descriptor of the file would drop.
    """
    if is_url(path) or holds_table(Path(path)):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(1) == b"{"
    except OSError:
        return False


def _export_store(path: str) -> Store:
    """An export read into a table in this process's memory, checked as import checks it."""
    name = f"memory:verify-{os.getpid()}-{id(path)}"
    with open(path, "rb") as f:
        import_table(f, path, name)
    return open_store(name, readonly=True)


def cmd_end_session(args: argparse.Namespace) -> int:
    table = Table.open(args.path)
    try:
        records = table.execute(EndSession())
    finally:
        table.close()
    first, last = records[0].seq, records[-1].seq
    opened = f"record {first}" if first == last else f"records {first}-{last}"
    print(
        f"{display_name(args.path)}: the session's dice are open ({opened}): "
        f"margin verify --dice recomputes them; the next session's are committed "
        f"(record {last})"
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    store = open_store(args.path, readonly=True)
    out = sys.stdout.buffer
    try:
        found = _intact(store) if args.salvage else None
        export(store, out, upto=found.kept if found is not None else None)
        out.flush()
        if found is not None:
            sys.stderr.write(f"{display_name(args.path)}: exported: {found.describe()}\n")
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise StoreError(f"standard output: cannot write the export ({exc.strerror})") from None
    finally:
        store.close()
    return 0


def _intact(store: Store) -> Intact:
    """How much of ``store`` is intact; a table with no whole command intact is refused."""
    found = find_intact(store)
    if found.kept == 0:
        raise StoreError(
            f"{store.name}: record {found.bad} {found.reason}; no whole command before it"
        )
    return found


def cmd_salvage(args: argparse.Namespace) -> int:
    new = display_name(args.new)
    if table_exists(args.new):
        raise StoreError(f"{new}: already exists; salvage writes a new table")
    store = open_store(args.path, readonly=True)
    try:
        found = salvage(store, args.new)
    finally:
        store.close()
    print(f"salvaged {display_name(args.path)} into {new} (verified): {found.describe()}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    key = _key(args)
    with (
        startup.collector_paused(),
        open(args.file, "rb") if args.file != "-" else sys.stdin.buffer as f,
    ):
        count = import_table(f, args.file, args.path, key)
    print(f"imported {count} records into {display_name(args.path)}")
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    store = open_store(args.path, readonly=True)
    try:
        count = store.backup(args.dest)
    finally:
        store.close()
    what = "verified" if is_url(args.dest) else "one file, verified"
    print(
        f"copied {count} records of {display_name(args.path)} into {display_name(args.dest)} ({what})"
    )
    return 0


def cmd_key(args: argparse.Namespace) -> int:
    from margin.tui.table.keys import key_path, signing_key

    key = signing_key()
    print(key.public)
    if args.path:
        sys.stderr.write(f"the private key is {key_path()}\n")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    from margin.tui.table.resolve import run

    return run(sys.stdin, sys.stdout, seed=args.seed)


def cmd_rules(args: argparse.Namespace) -> int:
    if args.system is None:
        for sid, s in SYSTEMS.items():
            print(f"{sid:<12} {s.summary}")
        print("\nmargin rules SYSTEM prints the rules of one system as margin plays them.")
        return 0
    sys.stdout.write(render.rules_text(args.system))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from margin.tui.table.demo import build_demo

    build_demo(args.path, args.system).close()
    shown = display_name(args.path)
    print(f"created demo table {shown} ({args.system}); try: margin play {shown}")
    return 0


def _need_terminal(command: str) -> None:
    """The screens draw on a terminal; without one they would wait for keys that never come."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        sys.stderr.write(f"margin {command} needs a terminal (over SSH use ssh -t)\n")
        raise SystemExit(1)


def cmd_play(args: argparse.Namespace) -> int:
    if args.path and not is_url(args.path) and not table_exists(args.path):
        raise UsageError(
            f"{display_name(args.path)}: no such table; make one with "
            f"'margin new {args.path} --system ID' (ID one of {', '.join(SYSTEMS)}) "
            f"or 'margin demo {args.path}'"
        )
    _need_terminal("play")
    startup.pause()
    from margin.tui.screens.app import play

    return play(args.path)


def cmd_watch(args: argparse.Namespace) -> int:
    if args.plain:
        from margin.tui.text.plain import plain_seat

        return plain_seat(args.path, args.as_, bell=args.bell)
    _need_terminal("watch")
    startup.pause()
    from margin.tui.screens.app import watch

    return watch(args.path, args.as_, bell=args.bell)


def cmd_host(args: argparse.Namespace) -> int:
    import asyncio

    from margin.tui.host.host import Host, serve
    from margin.tui.host.ssh import HostError, parse_address, parse_keys

    try:
        cols, rows = parse_size(args.max_size)
    except ValueError as exc:
        raise UsageError(f"--max-size {exc}") from None
    try:
        ssh = parse_address(args.ssh, "--ssh")
        web = parse_address(args.web, "--web") if args.web else None
        seats = parse_keys(Path(args.keys).read_text(encoding="utf-8"), args.keys)
    except HostError as exc:
        raise UsageError(str(exc)) from None
    except UnicodeDecodeError:
        raise UsageError(f"--keys {args.keys}: not a text file of public keys") from None
    limits = Limits(args.per_seat, args.channels, args.sessions, cols, rows, args.memory)
    sheets = _sheets_folder(args.sheets)
    path = args.path if is_url(args.path) else str(Path(args.path).resolve())
    _say_unseated(path, set(seats.values()) - {"gm"})
    try:
        asyncio.run(serve(Host(path, seats, ssh, web, say=_say, limits=limits, sheets=sheets)))
    except OSError as exc:
        raise UsageError(f"cannot listen: {exc.strerror or exc}") from None
    return 0


def _sheets_folder(given: str | None) -> Path | None:
    """The folder ``--sheets`` names, if any; a UsageError when it is not a folder."""
    if given is None:
        return None
    sheets = Path(given).expanduser().resolve()
    if not sheets.is_dir():
        raise UsageError(f"--sheets {given}: not a folder (give the folder of sheets)")
    return sheets


def _say_unseated(path: str, players: set[str]) -> None:
    """Say which of the players the host seats have no character at the table yet."""
    table = Table.open(path, readonly=True)
    state = table.state
    table.close()
    for seat in sorted(players):
        try:
            player_id(state, seat)
        except RuleError:
            print(f"{seat}: not seated yet; their session waits until the GM seats {seat}")


def _say(line: str) -> None:
    """A line of what the host does, on its output. An output that went away (the pipe
    to ``tee`` that Ctrl+C ended with the host) loses the lines after it, never the
    sessions: the host goes on to end each one cleanly, its client's terminal restored."""
    try:
        print(line, flush=True)
    except OSError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the host's output from now on


def _positive(text: str) -> int:
    """A whole number of 1 or more, for an option."""
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 10**9:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number, 1 or more")
    return int(text)


def cmd_replay(args: argparse.Namespace) -> int:
    _need_terminal("replay")
    startup.pause()
    from margin.tui.screens.app import replay

    return replay(args.path, args.as_)


def _write(text: str, path: str | None) -> None:
    """``text`` to the file ``path`` (written whole, then moved into place), or to standard output."""
    if path is None or path == "-":
        sys.stdout.write(text)
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"-o {path}: is a folder; give a file name")
    if holds_table(target):
        raise UsageError(f"-o {path}: a margin table (or its log); give another file name")
    partial = target.with_name(target.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(target)
    except OSError as exc:
        # a full disk: nothing half written is left, and what was at PATH stays
        partial.unlink(missing_ok=True)
        raise UsageError(
            f"-o {path}: cannot be written ({exc.strerror or exc}); {path} was left as it was"
        ) from None


def _recap(args: argparse.Namespace) -> Recap:
    """The recap of the table ``args`` name, as the seat and version they ask for."""
    from margin.tui.text import recap

    return recap.recap_of(args.path, args.as_, corrected=not args.as_it_happened, progress=True)


def cmd_recap(args: argparse.Namespace) -> int:
    from margin.tui.text import recap

    result = _recap(args)
    if args.format == "html":
        from margin.tui.text.recap_html import html

        text = html(result, args.as_)
    else:
        text = recap.markdown(result, args.as_)
    _write(text, args.output)
    return 0


def cmd_luck(args: argparse.Namespace) -> int:
    from margin.tui.text import recap

    result = _recap(args)
    sys.stdout.write(recap.luck_text(result, args.as_, checks=args.checks))
    return 0


def cmd_branch(args: argparse.Namespace) -> int:
    from margin.tui.table.branch import branch

    made = branch(args.path, args.at, args.new)
    print(
        f"created {display_name(args.new)}: a branch of {display_name(args.path)} "
        f"at record {made.at} ({made.records} records)"
    )
    if made.intact is not None:
        sys.stderr.write(f"{display_name(args.path)}: branched from: {made.intact.describe()}\n")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from margin.tui.table.branch import PLAIN_WIDTH, diff

    # as wide as the terminal; a pipe or a file gets lines any reader can take
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else PLAIN_WIDTH
    sys.stdout.write(diff(args.a, args.b, width))
    return 0


# -- parser -----------------------------------------------------------------


#: argparse's refusal of a word not among the choices (a command, a --system)
_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


def _did_you_mean(message: str) -> str:
    """argparse's refusal of an unknown choice, with the nearest valid one when there is one."""
    found = _INVALID_CHOICE.search(message)
    if found is None:
        return message
    near = difflib.get_close_matches(found[1], re.findall(r"'([^']*)'", found[2]), n=1)
    return f"{message}; did you mean '{near[0]}'?" if near else message


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        _fail(f"{_did_you_mean(message)} (see margin --help)", 2)


#: ``margin host``'s options that count sessions, and what each counts
HOST_COUNTS = (
    ("per-seat", "sessions one seat may have open"),
    ("channels", "sessions one SSH connection may carry"),
    ("sessions", "sessions in all"),
)


def _flag(parser: argparse.ArgumentParser, option: str, meaning: str | None = None) -> None:
    """An option that is on when given."""
    parser.add_argument(option, action="store_true", help=meaning)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="margin", description="A game master's table in the terminal.")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=_Parser)

    s = sub.add_parser("play", help="run the table screen (the default table when no PATH)")
    s.add_argument("path", nargs="?")
    s.set_defaults(func=cmd_play)

    s = sub.add_parser("watch", help="a player's live, read-only view of a table")
    s.add_argument("path")
    s.add_argument("--as", dest="as_", metavar="NAME", required=True, help="the player's character")
    _flag(s, "--bell", "ring the terminal's bell when you are on deck and when your turn begins")
    _flag(
        s,
        "--plain",
        "each new record as a line of text, never redrawn (screen readers, slow links); "
        "keys: t whose turn, c the clock, s your character, h help, q quit",
    )
    s.set_defaults(func=cmd_watch)

    s = sub.add_parser("host", help="serve a table to its seats over SSH (and a browser)")
    s.add_argument("path")
    s.add_argument("--ssh", required=True, metavar="[ADDR:]PORT", help="SSH address (127.0.0.1)")
    s.add_argument("--keys", required=True, metavar="KEYS", help="NAME KEYTYPE BASE64 a line")
    s.add_argument("--web", metavar="[ADDR:]PORT", help="also serve the screens over HTTP")
    s.add_argument(
        "--sheets", metavar="DIR", help="the folder the GM's seat reads sheet files from"
    )
    limits = Limits()
    for option, meaning in HOST_COUNTS:
        default = getattr(limits, option.replace("-", "_"))
        s.add_argument(
            f"--{option}", type=_positive, default=default, metavar="N",
            help=f"{meaning} ({default})",
        )  # fmt: skip
    s.add_argument(
        "--max-size",
        default=f"{limits.cols}x{limits.rows}",
        metavar="COLSxROWS",
        help=f"the largest terminal a session gets ({limits.cols}x{limits.rows})",
    )
    s.add_argument(
        "--memory", type=_positive, default=limits.memory, metavar="MIB",
        help=f"memory a session may hold before it is ended ({limits.memory} MiB)",
    )  # fmt: skip
    s.set_defaults(func=cmd_host)

    s = sub.add_parser("replay", help="scrub a session record by record")
    s.add_argument("path")
    s.add_argument("--as", dest="as_", metavar="NAME", help="replay what this player saw")
    s.set_defaults(func=cmd_replay)

    s = sub.add_parser("new", help="create a table")
    s.add_argument("path")
    s.add_argument(
        "--system",
        # the systems listed as the help is shown, not imported for every command
        choices=SYSTEMS,
        metavar="ID",
        help="dice system: %(choices)s",
    )
    s.add_argument(
        "--from",
        dest="from_",
        metavar="TABLE",
        help="continue TABLE: its system, options, macros and characters as they stand at its end",
    )
    s.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    s.add_argument("--title", default="")
    s.set_defaults(func=cmd_new)

    s = sub.add_parser("do", help="run JSON commands from standard input, one per line")
    s.add_argument("path", nargs="?")
    _flag(s, "--schema", "print the JSON Schema of the commands")
    s.add_argument("--system", help="with --schema: only this system's commands")
    s.add_argument("--author", help="who the GM's records name as their author (gm)")
    s.add_argument(
        "--as",
        dest="as_",
        metavar="NAME",
        help="give the commands from this player's seat, as the table's option players allows",
    )
    s.set_defaults(func=cmd_do)

    s = sub.add_parser("log", help="print the records")
    s.add_argument("path")
    _flag(s, "--json")
    s.add_argument("--as", dest="as_", metavar="NAME", help="through this player's lens")
    s.add_argument("--about", metavar="NAME", help="only the records about this character")
    s.add_argument("--grep", metavar="TEXT", help="only the records whose line holds TEXT")
    s.set_defaults(func=cmd_log)

    s = sub.add_parser("state", help="print the projection")
    s.add_argument("path")
    _flag(s, "--json")
    s.add_argument("--at", type=int, metavar="SEQ", help="state right after record SEQ")
    _flag(s, "--corrected", "apply every later undo too")
    s.add_argument("--as", dest="as_", metavar="NAME", help="through this player's lens")
    s.set_defaults(func=cmd_state)

    s = sub.add_parser("recap", help="a readable account of a session, with the luck report")
    s.add_argument("path")
    s.add_argument("--as", dest="as_", metavar="NAME", help="the recap this player may see")
    s.add_argument("--format", choices=("md", "html"), default="md", help="md (default) or html")
    s.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of the terminal")
    _flag(
        s, "--as-it-happened", "count undone records where they were made (default: as corrected)"
    )
    s.set_defaults(func=cmd_recap)

    s = sub.add_parser("luck", help="each character's checks against their exact odds")
    s.add_argument("path")
    s.add_argument("--as", dest="as_", metavar="NAME", help="what this player may see")
    _flag(s, "--checks", "list every check with its chance")
    _flag(s, "--as-it-happened", "count undone rolls too (default: not)")
    s.set_defaults(func=cmd_luck)

    s = sub.add_parser("branch", help="a new table sharing a table's records up to one")
    s.add_argument("path", help="the table to branch from")
    at = s.add_mutually_exclusive_group(required=True)
    at.add_argument("--at", type=int, metavar="RECORD", help="the last shared record")
    at.add_argument(
        "--salvage",
        dest="at",
        action="store_const",
        const=None,
        help="share every intact record of a damaged table (as margin salvage keeps them)",
    )
    s.add_argument("new", help="the new table file")
    s.set_defaults(func=cmd_branch)

    s = sub.add_parser("diff", help="where two tables part, and their characters side by side")
    s.add_argument("a")
    s.add_argument("b")
    s.set_defaults(func=cmd_diff)

    s = sub.add_parser("verify", help="check the hash chain, every record and every signature")
    s.add_argument("path")
    s.add_argument(
        "--key", metavar="KEY", help="require every record signed by this public key (or key file)"
    )
    _flag(s, "--dice", "also recompute every die margin drew and open every revealed secret")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser(
        "end-session", help="publish the session's dice seed and commit to the next session's"
    )
    s.add_argument("path")
    s.set_defaults(func=cmd_end_session)

    s = sub.add_parser("export", help="write the records as JSON Lines")
    s.add_argument("path")
    _flag(
        s,
        "--salvage",
        "of a damaged table: the intact records before the damage, as margin salvage keeps them",
    )
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("salvage", help="copy a damaged table's intact records into a new table")
    s.add_argument("path", help="the damaged table")
    s.add_argument("new", help="the new table")
    s.set_defaults(func=cmd_salvage)

    s = sub.add_parser("import", help="rebuild a table from exported JSON Lines")
    s.add_argument("file", help="JSON Lines file, or - for standard input")
    s.add_argument("path", help="the new table file")
    s.add_argument(
        "--key", metavar="KEY", help="require every record signed by this public key (or key file)"
    )
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("backup", help="copy a table into one file, even while it is played")
    s.add_argument("path")
    s.add_argument("dest", help="the new table file")
    s.set_defaults(func=cmd_backup)

    s = sub.add_parser("key", help="print the GM's public key (made on first use)")
    _flag(s, "--path", "also say where the private key is")
    s.set_defaults(func=cmd_key)

    s = sub.add_parser("resolve", help="the rules as a JSON Lines filter")
    s.add_argument("--seed", type=int)
    s.set_defaults(func=cmd_resolve)

    s = sub.add_parser("rules", help="the rules of a system as margin plays them")
    s.add_argument("system", nargs="?")
    s.set_defaults(func=cmd_rules)

    s = sub.add_parser("demo", help="create a demo table with a party and a fight")
    s.add_argument("path")
    s.add_argument("--system", default="2d10-edge", choices=SYSTEMS, metavar="ID")
    s.set_defaults(func=cmd_demo)

    return p


#: the arguments of margin's commands that name tables
TABLE_ARGS = ("path", "from_", "new", "dest", "a", "b")


def _clear_litter(args: argparse.Namespace) -> None:
    """What a margin killed while it built a table (import, backup, branch, new) left beside
    the tables this command names goes, before the command starts."""
    named = (getattr(args, name, None) for name in TABLE_ARGS)
    for folder in {Path(v).parent for v in named if isinstance(v, str) and not is_url(v)}:
        clear_partials(folder)


def main(argv: Sequence[str] | None = None) -> int:
    if isinstance(sys.stdout, io.TextIOWrapper):
        # a file name that is not UTF-8 is printed as the bytes it is, as the shell shows it
        sys.stdout.reconfigure(errors="surrogateescape")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    _clear_litter(args)
    try:
        return int(args.func(args))
    except (StoreError, RuleError, UsageError, DecodeError) as exc:
        _fail(str(exc))
    except BrokenPipeError:
        # the reader went away (margin log | head): stop quietly, as other tools do
        sys.stderr.close()
        return 0
    except OSError as exc:
        where = exc.filename if exc.filename is not None else "standard output"
        _fail(f"{where}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
