"""`s2r-tutor`: a thin adapter over `Tutor`. argparse, not a framework, so `--help` stays instant;
everything heavy is imported inside the verb that needs it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .textable import table

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_GATE = 0, 1, 2, 3


def _out(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(f"s2r-tutor: {text}\n")


def _settings(args):
    """Settings with the global flags (`--corpus`, `--index-dir`) applied: every verb, serve included."""
    from .settings import Settings

    overrides = {}
    if getattr(args, "corpus", None):
        overrides["corpus_dir"] = Path(args.corpus)
    if getattr(args, "index_dir", None):
        overrides["index_dir"] = Path(args.index_dir)
    return Settings(**overrides)


def _tutor(args, **kw):
    from .tutor import Tutor

    return Tutor.load(_settings(args), **kw)


def _snippet(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def cmd_index(args) -> int:
    tutor = _tutor(args, rebuild=args.rebuild)
    m = tutor.index.manifest
    state = f"built ({tutor.index.reason})" if tutor.index.rebuilt else "up to date"
    _out(f"index {state}: {m['chunks']} chunks, embedder {m['embedder']}, dim {m['dim']}, "
         f"in {tutor.settings.index_dir}")
    return EXIT_OK


def cmd_search(args) -> int:
    tutor = _tutor(args)
    hits = tutor.search(args.query, k=args.k)
    if args.json:
        _out(json.dumps({"query": args.query, "hits": [h.model_dump() for h in hits]}, ensure_ascii=False))
        return EXIT_OK
    if not hits:
        _out("no matching sections")
        return EXIT_OK
    rows = [(str(i), f"{h.score:.4f}", h.chunk_id, _snippet(h.text)) for i, h in enumerate(hits, 1)]
    _out(table(("#", "score", "section", "snippet"), rows))
    return EXIT_OK


def cmd_ask(args) -> int:
    tutor = _tutor(args)
    answer = tutor.ask(args.question)
    if args.json:
        _out(answer.model_dump_json())
        return EXIT_OK
    from .answer.render import render_text

    _out(render_text(answer))
    return EXIT_OK


def cmd_eval(args) -> int:
    from .evaluation.cli import run_eval_command

    return run_eval_command(args, _tutor)


def cmd_serve(args) -> int:
    from .web.server import serve

    settings = _settings(args)
    if args.processes is not None:
        if not 0 <= args.processes <= 32:
            _err("--processes must be between 0 and 32")
            return 2
        settings.web_processes = args.processes
    serve(host=args.host, port=args.port, settings=settings)
    return EXIT_OK


def cmd_info(args) -> int:
    from . import __version__, paths

    settings = _settings(args)
    home, why = paths.data_home()
    if settings.home != home:
        why = "settings"
    root = paths.checkout_root()
    folders = {
        "home": str(settings.home), "corpus_dir": str(settings.corpus_dir), "prompts_dir": str(settings.prompts_dir),
        "index_dir": str(settings.index_dir), "feedback_file": str(settings.feedback_file),
        "study_db": str(settings.study_db),
    }
    info = {"version": __version__, "package": str(Path(__file__).resolve().parent),
            "checkout": str(root) if root else None, "home_from": why, "folders": folders}
    if args.json:
        _out(json.dumps(info, ensure_ascii=False))
        return EXIT_OK
    origin = {"S2R_HOME": "S2R_HOME", "checkout": "the repo checkout", "platformdirs": "the user data folder",
              "settings": "settings"}[why]
    rows = [("version", __version__), ("package", info["package"]), ("checkout", info["checkout"] or "no (installed)"),
            ("data folder", f"{folders['home']}  (from {origin})")]
    rows += [(name, value) for name, value in folders.items() if name != "home"]
    _out(table(("what", "where"), rows))
    return EXIT_OK


def cmd_quiz(args) -> int:
    from .study.cli import run_quiz_command

    return run_quiz_command(args, _tutor)


def cmd_reader_token(args) -> int:
    """One signed reader token on stdout's last line; the reader and expiry go to stderr."""
    import time

    from .settings import Settings
    from .web.identity import issue_token, parse_ttl

    settings = Settings()
    ttl_s = parse_ttl(args.ttl) if args.ttl is not None else settings.reader_token_ttl_s
    token = issue_token(settings, args.reader, ttl_s)
    expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + ttl_s))
    sys.stderr.write(f"reader token for {args.reader!r}, expires {expires}; send it as "
                     "'Authorization: Bearer <token>' or open /?reader_token=<token>\n")
    _out(token)
    return EXIT_OK


def cmd_insights(args) -> int:
    from . import insights
    from .store import open_store

    settings = _settings(args)
    since_s = insights.parse_since(args.since) if args.since else None
    store = open_store(settings)
    if args.action == "export-cases":
        if args.refused == args.disliked:
            _err("export-cases needs exactly one of --refused or --disliked")
            return EXIT_USAGE
        for line in insights.export_cases(store, "refused" if args.refused else "disliked", since_s):
            _out(line)
        return EXIT_OK
    if args.refused or args.disliked:
        _err("--refused/--disliked go with `insights export-cases`")
        return EXIT_USAGE
    doc = insights.build(store, settings, since_s=since_s)
    _out(json.dumps(doc, ensure_ascii=False) if args.json else insights.render_text(doc))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="s2r-tutor",
        description="Ask the Sim2Real concept card questions; every answer cites its sections. "
                    "Offline: the embedding model ships with the package.",
    )
    p.add_argument("--corpus", metavar="DIR", help="folder of concept cards (default: the shipped card; "
                   "corpus/ in a checkout)")
    p.add_argument("--index-dir", metavar="DIR", help="where the index lives (default: index/ in the data "
                   "folder; see `s2r-tutor info`)")
    sub = p.add_subparsers(dest="verb", metavar="VERB")

    s = sub.add_parser("index", help="build the index if it is missing or stale")
    s.add_argument("--rebuild", action="store_true", help="rebuild even when the index is up to date")
    s.set_defaults(func=cmd_index)

    s = sub.add_parser("search", help="show the best-matching sections for a query")
    s.add_argument("query")
    s.add_argument("-k", type=int, default=5, help="number of hits (default 5, at most 50)")
    s.add_argument("--json", action="store_true", help="print one JSON document: {query, hits: [Hit...]}")
    s.set_defaults(func=cmd_search)

    s = sub.add_parser("ask", help="answer a question with cited sources")
    s.add_argument("question")
    s.add_argument("--json", action="store_true", help="print the Answer as one JSON document")
    s.set_defaults(func=cmd_ask)

    s = sub.add_parser("eval", help="run the evaluation set; exit 3 when a metric is below its threshold")
    s.add_argument("--cases", metavar="FILE", help="JSONL eval cases (default: tests/eval/cases.jsonl)")
    s.add_argument("--json", action="store_true", help="print the report as one JSON document")
    s.add_argument("--report", metavar="FILE", help="also write the JSON report to FILE")
    s.add_argument("--min", action="append", default=[], metavar="METRIC=VALUE",
                   help="override a threshold, e.g. --min hit_at_1=0.9 (repeatable)")
    s.set_defaults(func=cmd_eval)

    s = sub.add_parser("serve", help="serve the chat, the /embed widget and the HTTP API")
    s.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=None, help="port (default 7860)")
    s.add_argument("--processes", type=int, default=None, metavar="N",
                   help="answer in N worker processes, each with its own index (default 0: threads of the server "
                        "process; see docs/web.md)")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("info", help="show the version and which folders are in use (data, corpus, index, ...)")
    s.add_argument("--json", action="store_true", help="print one JSON document: {version, folders, ...}")
    s.set_defaults(func=cmd_info)

    s = sub.add_parser("reader-token", help="print a signed reader token (needs S2R_READER_SECRET)",
                       description="Print one HS256 reader token (sub = ID, exp = now + TTL) as the last line of "
                                   "stdout, for testing and for portal developers. Needs S2R_READER_SECRET.")
    s.add_argument("reader", metavar="ID", help="the reader id (1-64 letters, digits, '_', '.', '@' or '-')")
    s.add_argument("--ttl", default=None, metavar="TTL",
                   help="lifetime: seconds or a number with s/m/h/d, e.g. 8h (default: S2R_READER_TOKEN_TTL_S, 8h)")
    s.set_defaults(func=cmd_reader_token)

    s = sub.add_parser("quiz", help="practise with questions generated from the card")
    s.add_argument("--reader", default="default", help="reader id whose progress is kept")
    s.add_argument("--list", action="store_true", help="list the question bank instead of quizzing")
    s.add_argument("--json", action="store_true", help="with --list: print the bank as one JSON document")
    s.add_argument("-n", type=int, default=5, help="questions per session (default 5)")
    s.add_argument("--lang", choices=("zh", "en"), default="zh",
                   help="language of the prompts, hints and session lines; en also gives English feedback "
                        "(default zh: feedback follows each reply's language); card text stays Chinese")
    s.set_defaults(func=cmd_quiz)

    s = sub.add_parser("insights", help="what readers ask: top, refused, low-confidence and disliked questions",
                       description="Reads the question log and feedback in the store (S2R_DATABASE_URL). "
                                   "`insights export-cases --refused|--disliked > new.jsonl` writes eval cases "
                                   "to label (fill expected_sections) before adding them to tests/eval/.")
    s.add_argument("action", nargs="?", choices=["export-cases"], help="export-cases: print eval-case lines to label")
    s.add_argument("--since", metavar="AGE", help="only the last AGE: 30m, 24h, 7d, 2w (default: everything kept)")
    s.add_argument("--json", action="store_true", help="print one JSON document (questions, refused, "
                   "low_confidence, disliked, sections, languages, days)")
    s.add_argument("--refused", action="store_true", help="with export-cases: the refused questions")
    s.add_argument("--disliked", action="store_true", help="with export-cases: the questions of disliked answers")
    s.set_defaults(func=cmd_insights)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from pydantic import ValidationError

    from .errors import TutorError

    try:
        return args.func(args)
    except TutorError as exc:
        _err(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except ValidationError as exc:
        # Settings from the environment: name the field and the problem, never echo the value (a
        # too-short S2R_READER_SECRET would otherwise be printed to the terminal and CI logs).
        _err("invalid settings: " + "; ".join(f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}"
                                             for e in exc.errors()[:5]))
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # last resort: one line, never a traceback (S2R_DEBUG=1 shows it)
        import os

        if os.environ.get("S2R_DEBUG"):
            raise
        _err(f"unexpected error ({exc.__class__.__name__}: {exc}); rerun with S2R_DEBUG=1 for details")
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
