"""The ``margin`` command line."""

from __future__ import annotations

import argparse
import gc
import json
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import msgspec

from core import SYSTEMS, RuleError, command_schema, get_system, parse_command
from events import DecodeError, PlayerLog, SQLiteStore, StoreError, record_to_builtins
from events.jsonl import export_line, read_lines

from . import render
from .table import Table


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
    options = _parse_options(args.system, args.option)
    Table.create(args.path, args.system, options, title=args.title).close()
    print(f"created {args.path} ({args.system})")
    return 0


def cmd_do(args: argparse.Namespace) -> int:
    if args.schema:
        if args.system:
            get_system(args.system)
        print(json.dumps(command_schema(args.system), indent=2))
        return 0
    if not args.path:
        raise UsageError("do: give a table PATH (or --schema)")
    table = Table.open(args.path)
    failed = False
    out = sys.stdout
    for lineno, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            command = parse_command(table.state.system, line)
            records = table.execute(command, author=args.author)
            reply: dict[str, Any] = {
                "ok": True,
                "seq": [records[0].seq, records[-1].seq],
                "command": records[0].command,
            }
        except RuleError as exc:
            failed = True
            reply = {"error": f"line {lineno}: {exc}"}
        except (StoreError, sqlite3.DatabaseError):
            raise
        except Exception as exc:  # a bug in one command must not stop a bot's conversation
            failed = True
            reply = {"error": f"line {lineno}: margin failed ({type(exc).__name__}: {exc})"}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    table.close()
    return 1 if failed else 0


def _lens_name(table: Table, name: str | None) -> str | None:
    """The id of the player whose lens is asked for, or None for the GM's view."""
    if name is None:
        return None
    from .view import player_id

    return player_id(table.state, name)


def cmd_log(args: argparse.Namespace) -> int:
    table = Table.open(args.path, readonly=True)
    player = _lens_name(table, args.as_)
    voided = table.projection.history.voided
    # what players know now: a record revealed at any point shows whole
    revealed = table.state.revealed
    lens = PlayerLog() if player is not None else None
    out = sys.stdout
    for record in table.store.records():
        if lens is not None:
            data = lens.view(record, revealed)
            if data is None:
                continue
        else:
            data = record_to_builtins(record)
        if args.json:
            flat = {k: v for k, v in data.items() if k != "event"}
            flat.update(data["event"])
            flat["seq"] = data["seq"]
            flat["undone"] = record.seq in voided
            out.write(json.dumps(flat) + "\n")
        else:
            mark = " (undone)" if record.seq in voided else ""
            secret = " [secret]" if record.visibility.hidden and player is None else ""
            text = render.describe(table.state.system, data)
            out.write(
                f"{data['seq']:>6}  {record.at[11:19]}  {record.author:<8} {text}{secret}{mark}\n"
            )
    table.close()
    return 0


def _state_for(table: Table, args: argparse.Namespace) -> Any:
    seq = table.projection.seq if args.at is None else args.at
    if args.at is not None and not 1 <= args.at <= table.projection.seq:
        raise UsageError(f"--at {args.at}: the table has records 1..{table.projection.seq}")
    state = table.projection.state_at(seq, corrected=args.corrected)
    if args.as_ is not None:
        from .view import lens_state

        _lens_name(table, args.as_)
        state = lens_state(state)
    data = msgspec.to_builtins(state)
    data["revealed"] = sorted(data.get("revealed", []))
    return data


def cmd_state(args: argparse.Namespace) -> int:
    table = Table.open(args.path, readonly=True)
    data = _state_for(table, args)
    if args.json:
        print(json.dumps(data))
    else:
        print(f"{args.path}: {data['system']} at record {data['seq']}")
        for k, v in data["options"].items():
            print(f"  option {k} = {v}")
        for char in data["characters"].values():
            extra = {k: v for k, v in char.items() if k not in ("id", "name", "sheet", "hidden")}
            bits = " ".join(f"{k}={v}" for k, v in extra.items())
            print(f"  {char['name']}{' (hidden)' if char.get('hidden') else ''} {bits}".rstrip())
    table.close()
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    store = SQLiteStore(args.path, readonly=True)
    try:
        bad = store.verify()
        last = store.last_seq
    finally:
        store.close()
    if bad is not None:
        _fail(f"{args.path}: record {bad} is broken (hash chain or decoding)")
    print(f"{args.path}: {last} records, chain intact")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    store = SQLiteStore(args.path, readonly=True)
    out = sys.stdout.buffer
    for row in store.rows():
        out.write(export_line(row))
    out.flush()
    store.close()
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """One pass: each line's chain hash is checked and its body decoded as it is
    written, so the new table is verified without reading it again."""
    path = Path(args.path)
    if path.exists():
        raise UsageError(f"{path}: already exists; import writes a new table")
    store = SQLiteStore(path, create=True)
    collect = gc.isenabled()
    gc.disable()
    try:
        with open(args.file, "rb") if args.file != "-" else sys.stdin.buffer as f:
            count = store.import_rows(read_lines(f, args.file))
        if count == 0:
            raise StoreError(f"{args.file}: no records to import")
    except BaseException:
        store.close()
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        raise
    finally:
        if collect:
            gc.enable()
    store.close()
    print(f"imported {count} records into {path}")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    from .resolve import run

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
    from .demo import build_demo

    build_demo(args.path, args.system)
    print(f"created demo table {args.path} ({args.system}); try: margin play {args.path}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from .app import play

    return play(args.path)


def cmd_watch(args: argparse.Namespace) -> int:
    from .app import watch

    return watch(args.path, args.as_)


def cmd_replay(args: argparse.Namespace) -> int:
    from .app import replay

    return replay(args.path, args.as_)


def _write(text: str, path: str | None) -> None:
    """``text`` to the file ``path`` (written whole, then moved into place), or to standard output."""
    if path is None or path == "-":
        sys.stdout.write(text)
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"-o {path}: is a folder; give a file name")
    partial = target.with_name(target.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(target)


def cmd_recap(args: argparse.Namespace) -> int:
    from . import recap

    table = Table.open(args.path, readonly=True)
    try:
        result = recap.build(table, args.as_, corrected=not args.as_it_happened, progress=True)
    finally:
        table.close()
    if args.format == "html":
        from .recap_html import html

        text = html(result, args.as_)
    else:
        text = recap.markdown(result, args.as_)
    _write(text, args.output)
    return 0


def cmd_luck(args: argparse.Namespace) -> int:
    from . import recap

    table = Table.open(args.path, readonly=True)
    try:
        result = recap.build(table, args.as_, corrected=not args.as_it_happened, progress=True)
    finally:
        table.close()
    sys.stdout.write(recap.luck_text(result, args.as_, checks=args.checks))
    return 0


def cmd_branch(args: argparse.Namespace) -> int:
    from .branch import branch

    count = branch(args.path, args.at, args.new)
    print(f"created {args.new}: a branch of {args.path} at record {args.at} ({count} records)")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from .branch import diff

    sys.stdout.write(diff(args.a, args.b))
    return 0


# -- parser -----------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        _fail(f"{message} (see margin --help)", 2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="margin", description="A game master's table in the terminal.")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=_Parser)

    s = sub.add_parser("play", help="run the table screen (the default table when no PATH)")
    s.add_argument("path", nargs="?")
    s.set_defaults(func=cmd_play)

    s = sub.add_parser("watch", help="a player's live, read-only view of a table")
    s.add_argument("path")
    s.add_argument("--as", dest="as_", metavar="NAME", required=True, help="the player's character")
    s.set_defaults(func=cmd_watch)

    s = sub.add_parser("replay", help="scrub a session record by record")
    s.add_argument("path")
    s.add_argument("--as", dest="as_", metavar="NAME", help="replay what this player saw")
    s.set_defaults(func=cmd_replay)

    s = sub.add_parser("new", help="create a table")
    s.add_argument("path")
    s.add_argument(
        "--system",
        required=True,
        choices=list(SYSTEMS),
        metavar="ID",
        help="dice system: " + ", ".join(SYSTEMS),
    )
    s.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    s.add_argument("--title", default="")
    s.set_defaults(func=cmd_new)

    s = sub.add_parser("do", help="run JSON commands from standard input, one per line")
    s.add_argument("path", nargs="?")
    s.add_argument("--schema", action="store_true", help="print the JSON Schema of the commands")
    s.add_argument("--system", help="with --schema: only this system's commands")
    s.add_argument("--author", default="gm")
    s.set_defaults(func=cmd_do)

    s = sub.add_parser("log", help="print the records")
    s.add_argument("path")
    s.add_argument("--json", action="store_true")
    s.add_argument("--as", dest="as_", metavar="NAME", help="through this player's lens")
    s.set_defaults(func=cmd_log)

    s = sub.add_parser("state", help="print the projection")
    s.add_argument("path")
    s.add_argument("--json", action="store_true")
    s.add_argument("--at", type=int, metavar="SEQ", help="state right after record SEQ")
    s.add_argument("--corrected", action="store_true", help="apply every later undo too")
    s.add_argument("--as", dest="as_", metavar="NAME", help="through this player's lens")
    s.set_defaults(func=cmd_state)

    s = sub.add_parser("recap", help="a readable account of a session, with the luck report")
    s.add_argument("path")
    s.add_argument("--as", dest="as_", metavar="NAME", help="the recap this player may see")
    s.add_argument("--format", choices=("md", "html"), default="md", help="md (default) or html")
    s.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of the terminal")
    s.add_argument(
        "--as-it-happened",
        action="store_true",
        help="count undone records where they were made (default: as corrected)",
    )
    s.set_defaults(func=cmd_recap)

    s = sub.add_parser("luck", help="each character's checks against their exact odds")
    s.add_argument("path")
    s.add_argument("--as", dest="as_", metavar="NAME", help="what this player may see")
    s.add_argument("--checks", action="store_true", help="list every check with its chance")
    s.add_argument(
        "--as-it-happened", action="store_true", help="count undone rolls too (default: not)"
    )
    s.set_defaults(func=cmd_luck)

    s = sub.add_parser("branch", help="a new table sharing a table's records up to one")
    s.add_argument("path", help="the table to branch from")
    s.add_argument("--at", type=int, required=True, metavar="RECORD", help="the last shared record")
    s.add_argument("new", help="the new table file")
    s.set_defaults(func=cmd_branch)

    s = sub.add_parser("diff", help="where two tables part, and their characters side by side")
    s.add_argument("a")
    s.add_argument("b")
    s.set_defaults(func=cmd_diff)

    s = sub.add_parser("verify", help="check the hash chain and every record")
    s.add_argument("path")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("export", help="write the records as JSON Lines")
    s.add_argument("path")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("import", help="rebuild a table from exported JSON Lines")
    s.add_argument("file", help="JSON Lines file, or - for standard input")
    s.add_argument("path", help="the new table file")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("resolve", help="the rules as a JSON Lines filter")
    s.add_argument("--seed", type=int)
    s.set_defaults(func=cmd_resolve)

    s = sub.add_parser("rules", help="the rules of a system as margin plays them")
    s.add_argument("system", nargs="?")
    s.set_defaults(func=cmd_rules)

    s = sub.add_parser("demo", help="create a demo table with a party and a fight")
    s.add_argument("path")
    s.add_argument("--system", default="2d10-edge", choices=list(SYSTEMS), metavar="ID")
    s.set_defaults(func=cmd_demo)

    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args))
    except (StoreError, RuleError, UsageError, DecodeError) as exc:
        _fail(str(exc))
    except sqlite3.DatabaseError as exc:
        _fail(f"{getattr(args, 'path', '')}: cannot read the table ({exc})")
    except BrokenPipeError:
        # the reader went away (margin log | head): stop quietly, as other tools do
        sys.stderr.close()
        return 0
    except OSError as exc:
        _fail(f"{exc.filename or ''}: {exc.strerror}" if exc.strerror else str(exc))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
