"""The long fuzz sweep: thousands of corrupted lexicons and every hand-built hostile file.

Run from the repository root:
    python benchmarks/fuzz_sweep.py [--cases 10000] [--timeout 10] [--json summary.json]
    python benchmarks/fuzz_sweep.py --replay field/adtdawg/random2k/123   # one case, in this process
    python benchmarks/fuzz_sweep.py --checkpoints 10000 [--cli-runs 6]   # the checkpoint family
    python benchmarks/fuzz_sweep.py --languages 10000 [--cli-runs 6]   # language files through dawgc build
    python benchmarks/fuzz_sweep.py --server 10000   # the server: every code point through every endpoint

Each case is a copy of a base build (three lexicons: 32 words, 2,000 random
JPA14 words, 400 words with Qu) corrupted one way (tests/fuzz_cases.py: bit
flips, boundary values in chosen fields, resizes, splices, raw corruptions,
type-confused manifests), checksums repaired so the structural checks are
reached, plus every file of tests/adversarial.py. Each is opened and, when it
opens, scored on boards 2x2..8x8 by the numba batch (jobs 1 and 2) and the
CPython single-board engine, and put through `dawgc info/verify/words`, in
supervised workers with a per-case timeout (tests/fuzz_worker.py).

Writes benchmarks/results/fuzz_sweep.md (unless --no-write): results by kind
and format, the checks that rejected cases, and every failure by category.

--checkpoints N fuzzes checkpoints instead (tests/fuzz_cases.py mangle_checkpoint): a
search's and a proof's real checkpoint (the small lexicon) edited N ways, each read the way
--resume reads it (Checkpoint.open with the job's record schema) and, when accepted, its
records merged with those of the tasks it lacks, as a resumed run does; --cli-runs of them
also go through `dawg-solve search/prove --resume` on a local cluster. A case passes when it
is refused in one line naming the file (or, for what only merging checks, in one line), or resumes
to an answer without an exception. Its
table replaces the "Checkpoint cases" section of fuzz_sweep.md.

--languages N builds N generated language files with small word lists (tests/fuzz_cases.py
language_case) through `dawgc build --language`, each into the output the worker's last case built;
`--replay I` runs case I alone. A case passes when the build is refused in one line (non-zero exit, no
traceback, the previous build kept) or builds a lexicon that every reader opens (`open_all` and its
language, `dawgc info`, `info --json`, `verify --source`). Its table replaces the "Language file
cases" section.

--server N fuzzes `dawg-solve serve` instead: N requests that between them carry every code point
(lone surrogates included, as JSON escapes and as raw bytes) through every text of every endpoint
(run_server). A case passes when it is answered under 500 in JSON and the server logs nothing but
uvicorn's warning for malformed HTTP. Its table replaces the "Server cases" section.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

from common import COMPILER_CLI, REPO, RESULTS, SOLVER_CLI, machine

sys.path[:0] = [str(REPO), str(REPO / "tests")]

import adversarial
import fuzz_cases
import fuzz_worker
from fuzz_worker import PASSED, replay, run_parallel

MUTATIONS = tuple(k for k in fuzz_cases.KINDS if k != "hostile")


def this_command() -> str:
    """The command line this sweep was run with, for the record."""
    return shlex.join(["python", "benchmarks/fuzz_sweep.py", *sys.argv[1:]])


def section_header(heading: str, command: str, counted: str, seconds: float, loads: tuple, out_of: str,
                   how: str = "") -> list[str]:
    """The lines every results section opens with: its heading, when and with what it was measured, the code
    under test, how many cases (`counted`, `how` they ran) in how long, and the load around them."""
    return [heading, "",
            f"Measured {date.today().isoformat()} with `{command}` on: {machine()}.", "",
            (f"Code under test: {out_of}. {counted} in {seconds:,.0f} s{how}; load average "
             f"{loads[0][0]:.2f} before, {loads[1][0]:.2f} after (1-minute)."), ""]


def write_section(marker: str, section: str) -> None:
    """Put `section` (starting with its `marker` heading) into results/fuzz_sweep.md: in place of the one
    already there, else before "## Earlier runs", else at the end."""
    path = RESULTS / "fuzz_sweep.md"
    text = path.read_text()
    start = text.find(marker)
    end = text.find("\n## ", start + 1) if start >= 0 else -1
    earlier = text.find("## Earlier runs")
    if start >= 0:
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    elif earlier >= 0:
        text = text[:earlier] + section + "\n" + text[earlier:]
    else:
        text += "\n" + section
    path.write_text(text)
    print(f"wrote {path}", file=sys.stderr)


def report_section(args, marker: str, section: str, what: str, results: list[dict], failed: list[dict],
                   seconds: float) -> None:
    """A family's ending: its section written (unless --no-write), its first failures and its count printed."""
    if not args.no_write:
        write_section(marker, section)
    for result in failed[:10]:
        print(result, file=sys.stderr)
    print(f"{len(results)} {what} cases, {len(failed)} failed, {seconds:.0f} s", file=sys.stderr)


def all_specs(count: int, first_seed: int) -> list[dict]:
    """`count` mutated builds over every kind, format and lexicon, then each hostile file once."""
    specs = fuzz_cases.specs(count, first_seed, kinds=MUTATIONS)
    return specs + [{"kind": "hostile", "fmt": "-", "lexicon": "small", "seed": i}
                    for i in range(len(adversarial.CATALOGUE))]


def summarise(specs: list[dict], results: list[dict]) -> dict:
    table: dict[str, Counter] = defaultdict(Counter)
    rules: dict[str, Counter] = defaultdict(Counter)
    failures: dict[str, list[dict]] = defaultdict(list)
    for spec, result in zip(specs, results):
        outcome = result["outcome"]
        table[f"{spec['kind']} {result['fmt']}"][outcome] += 1
        if outcome == "rejected":
            rules[result["fmt"]][result["rule"]] += 1
        elif outcome not in PASSED:
            failures[failure_category(spec, result)].append(
                {"spec": fuzz_cases.spec_text(spec), "what": result["what"], "detail": result["detail"]})
    return {"cases": len(specs), "failed": sum(len(v) for v in failures.values()),
            "table": {k: dict(v) for k, v in sorted(table.items())},
            "rules": {k: dict(v.most_common()) for k, v in sorted(rules.items())},
            "failures": dict(sorted(failures.items(), key=lambda kv: -len(kv[1])))}


def failure_category(spec: dict, result: dict) -> str:
    """Outcome, kind, format and where it happened, without case-specific numbers and paths."""
    detail = result["detail"]
    if spec["kind"] == "hostile":
        where = result["what"]
    elif result["outcome"] in ("exception", "memory"):  # "step: Type: message at file:line"
        step, _, rest = detail.partition(": ")
        where = f"{step}: {rest.split(':', 1)[0]}" + (f" at {detail.rsplit(' at ', 1)[1]}" if " at " in detail else "")
    elif result["outcome"] == "verify-mismatch":
        where = re.sub(r"\(.*?\)|\d+", "N", detail.split("FAIL", 1)[-1]).strip()
    else:
        where = re.sub(r"\S*case-\d+\S*|\d+", "N", detail)
    return f"{result['outcome']} | {spec['kind']} {result['fmt']} | {where[:100]}"


def markdown(summary: dict, command: str, seconds: float, loads: tuple, out_of: str) -> str:
    lines = [
        *section_header("# Fuzz sweep", command, f"{summary['cases']:,} cases", seconds, loads, out_of),
        ("A case passes when it is a clean rejection (DawgError: one line naming the case's file) or a "
        "lexicon whose scores agree across the numba batch (jobs 1 and 2) and the CPython engine, and "
        "on which `dawgc info`, `info --json`, `verify` and `words -n` end cleanly. "
        "Replay a case with `python benchmarks/fuzz_sweep.py --replay SPEC`."), "",
        f"**{summary['failed']} failing cases.**", "",
        "## Outcomes by kind and format", "",
        "| kind | format | cases | rejected | accepted | failed |", "|---|---|---:|---:|---:|---:|",
    ]
    for key, counts in summary["table"].items():
        kind, fmt = key.split(" ")
        failed = sum(v for k, v in counts.items() if k not in PASSED)
        detail = ", ".join(f"{k} {v}" for k, v in counts.items() if k not in PASSED)
        lines.append(f"| {kind} | {fmt} | {sum(counts.values())} | {counts.get('rejected', 0)} | "
                     f"{counts.get('accepted', 0)} | {failed}{f' ({detail})' if detail else ''} |")
    lines += ["", "## Failures by category", ""]
    if not summary["failures"]:
        lines.append("None.")
    for category, cases in summary["failures"].items():
        lines.append(f"- **{category}**: {len(cases)} case{'s' if len(cases) > 1 else ''}, e.g. "
                     + "; ".join(f"`{c['spec']}` ({c['what'][:60]}): {c['detail'][:160]}" for c in cases[:2]))
    lines += ["", "## Checks that rejected cases (message without paths and numbers)", ""]
    for fmt, rules in summary["rules"].items():
        lines += [f"### {fmt} ({len(rules)} distinct)", "", "| cases | message |", "|---:|---|"]
        lines += [f"| {n} | {rule.replace('|', '/')} |" for rule, n in rules.items()]
        lines.append("")
    return "\n".join(lines)


CHECKPOINT_SECTION = "## Checkpoint cases"
SEARCH_ARGS = ["--size", "3x3", "--rounds", "3", "--seed", "5", "--tasks", "6", "--top", "5"]
PROVE_ARGS = ["--size", "2x2", "--min-score", "2"]


def checkpoint_bases(work: Path) -> list[dict]:
    """A search's and a proof's checkpoint on the small lexicon, written by real runs (in process)."""
    from boggle_dawg.solver.board import parse_size
    from boggle_dawg.solver.cluster.checkpoint import Checkpoint
    from boggle_dawg.solver.cluster.dask_engine import Outcome
    from boggle_dawg.solver.cluster.prove_job import ProvePlan, run_prove_task
    from boggle_dawg.solver.cluster.search_job import SearchPlan, run_search_task
    from boggle_dawg.solver.lexicon import open_lexicon
    from boggle_dawg.solver.search import Budget

    build = fuzz_cases.build_lexicons(work / "builds")["small"]
    lexicon = open_lexicon(build)
    search = SearchPlan(lexicon, parse_size("3x3"), Budget(rounds=3), "hillclimb", 5, 6, top=5)
    prove = ProvePlan(lexicon, parse_size("2x2"), 2)
    with lexicon.scorer(1) as scorer:
        search_records = {task: run_search_task(spec, scorer) for task, spec in search.job().tasks}
    prove_records = {task: run_prove_task(spec, lexicon) for task, spec in prove.job().tasks}

    def search_answer(records):
        result = search.merge(Outcome(records, search.tasks), 0.0)
        return result.top, result.rounds, result.evaluations, result.stopped

    def prove_answer(records):
        result = prove.merge(Outcome(records, len(records)), 0.0)
        return result.boards, result.classes, result.nodes, result.scored

    bases = []
    for kind, plan, records, answer, args in (("search", search, search_records, search_answer, SEARCH_ARGS),
                                              ("prove", prove, prove_records, prove_answer, PROVE_ARGS)):
        path = work / f"{kind}.ckpt"
        with Checkpoint.open(path, plan.header(), resume=False) as checkpoint:
            for task, record in records.items():
                checkpoint.append(task, record)
        bases.append({"kind": kind, "plan": plan, "records": records, "answer": answer, "data": path.read_bytes(),
                      "reference": answer(records), "args": [kind, str(build), *args]})
    return bases


def checkpoint_case(index: int, bases: list[dict], work: Path) -> dict:
    """One checkpoint case, read as --resume reads it; its outcome and, if refused, the rule."""
    from boggle_dawg.solver.cluster.checkpoint import Checkpoint
    from boggle_dawg.solver.errors import DawgError

    base = bases[index % len(bases)]
    data, what = fuzz_cases.mangle_checkpoint(base["data"], index // len(bases))
    path = work / f"case-{index}.ckpt"
    path.write_bytes(data)
    result = {"kind": base["kind"], "what": what}
    try:
        with Checkpoint.open(path, base["plan"].header(), resume=True,
                             check_record=base["plan"].check_record) as checkpoint:
            records = {task: r for task, r in checkpoint.records.items() if task in base["records"]}
        records.update((task, r) for task, r in base["records"].items() if task not in records)  # the rest, run again
    except DawgError as err:
        message = str(err)
        ok = message and "\n" not in message and path.name in message
        rule = re.sub(r"(different run \(\w+):.*", r"\1: ... there, ... now)", message.replace(str(path), "<file>"))
        result.update(outcome="rejected" if ok else "message", rule=fuzz_worker.rule_of(rule), detail=message[:200])
        return result
    except Exception as err:  # noqa: BLE001 (anything but DawgError is a failure)
        result.update(outcome="exception", detail=f"{type(err).__name__}: {str(err)[:200]}")
        return result
    finally:
        path.unlink(missing_ok=True)
        Path(f"{path}.lock").unlink(missing_ok=True)
    try:  # merged as the resumed run merges them, which checks what the schema cannot (canonical boards)
        same = base["answer"](records) == base["reference"]
        result["outcome"] = "resumed" if same else "resumed-edited"
    except DawgError as err:
        message = str(err)
        result.update(outcome="rejected" if message and "\n" not in message else "message",
                      rule="when merged: " + fuzz_worker.rule_of(message), detail=message[:200])
    except Exception as err:  # noqa: BLE001 (anything but DawgError is a failure)
        result.update(outcome="exception", detail=f"{type(err).__name__}: {str(err)[:200]}")
    return result


def checkpoint_cli_case(index: int, bases: list[dict], work: Path, timeout: float) -> dict:
    """The same case through `dawg-solve ... --resume` on a local cluster of one worker."""
    import subprocess

    base = bases[index % len(bases)]
    data, what = fuzz_cases.mangle_checkpoint(base["data"], index // len(bases))
    path = work / f"cli-{index}.ckpt"
    path.write_bytes(data)
    proc = subprocess.run([*SOLVER_CLI, *base["args"], "--workers", "1", "--json", "-q", "--checkpoint", str(path),
                           "--resume"], capture_output=True, text=True, timeout=timeout, cwd=REPO)
    lines = proc.stderr.strip().splitlines()
    if proc.returncode == 0:
        outcome = "resumed"
    elif proc.returncode == 1 and len(lines) == 1 and "Traceback" not in proc.stderr:
        outcome = "rejected"
    else:
        outcome = "exception"
    return {"kind": f"{base['kind']} (CLI)", "what": what, "outcome": outcome,
            "detail": (lines[-1] if lines else "")[:200]}


CHECKPOINT_PASSED = ("rejected", "resumed", "resumed-edited")


def checkpoint_markdown(results: list[dict], command: str, seconds: float, loads: tuple, out_of: str) -> str:
    table: dict[str, Counter] = defaultdict(Counter)
    rules: Counter = Counter()
    failures = [r for r in results if r["outcome"] not in CHECKPOINT_PASSED]
    for result in results:
        table[(result["kind"], _edit_of(result["what"]))][result["outcome"]] += 1
        if result["outcome"] == "rejected" and "rule" in result:
            rules[result["rule"]] += 1
    lines = [
        *section_header(CHECKPOINT_SECTION, command, f"{len(results):,} cases", seconds, loads, out_of),
        ("A case is a real search's or proof's checkpoint (the small lexicon) with one edit: a record field "
         "given a value of the wrong type, removed or added, nested up to 200,000 deep, its task id or board "
         "text changed, two task ids swapped (checksums recomputed), or the file truncated, a byte changed, "
         "the header edited. It passes when `--resume` refuses it in one line naming the file, or resumes: "
         "*resumed* gives the unedited answer, *resumed-edited* an answer from an edit the schema cannot "
         "tell from a real record (a count or score changed within range, a board swapped for another). "
         "The CLI rows ran `dawg-solve ... --resume` on a local cluster."), "",
        f"**{len(failures)} failing cases.**", "",
        "| checkpoint | edit | cases | rejected | resumed | resumed-edited | failed |", "|---|---|---:|---:|---:|---:|---:|",
    ]
    for (kind, edit), counts in sorted(table.items()):
        failed = sum(v for k, v in counts.items() if k not in CHECKPOINT_PASSED)
        lines.append(f"| {kind} | {edit} | {sum(counts.values())} | {counts['rejected']} | {counts['resumed']} | "
                     f"{counts['resumed-edited']} | {failed} |")
    lines += ["", "Failures:", ""]
    lines += [f"- `{r['kind']}` {r['what']}: {r['outcome']}: {r.get('detail', '')}" for r in failures[:20]] or ["None."]
    lines += ["", "Checks that refused cases (message without paths and numbers):", "", "| cases | message |",
              "|---:|---|"]
    lines += [f"| {n} | {rule.replace('|', '/')} |" for rule, n in rules.most_common()]
    return "\n".join(lines) + "\n"


def _edit_of(what: str) -> str:
    for edit, marker in (("truncate", "truncated"), ("flip", "byte"), ("header", "header"), ("swap", "swapped"),
                         ("nest", "nested"), ("extra", "gains"), ("delete", "deleted"), ("task", "task =")):
        if marker in what:
            return edit
    return "board" if "= '" in what else "type"


def run_checkpoints(args) -> None:
    work = Path(tempfile.mkdtemp(prefix="fuzz-checkpoints-"))
    loads = [os.getloadavg()]
    started = time.perf_counter()
    bases = checkpoint_bases(work)
    results = [checkpoint_case(i, bases, work) for i in range(args.checkpoints)]
    results += [checkpoint_cli_case(i, bases, work, 120) for i in range(args.cli_runs)]
    seconds = time.perf_counter() - started
    loads.append(os.getloadavg())
    failed = [r for r in results if r["outcome"] not in CHECKPOINT_PASSED]
    section = checkpoint_markdown(results, this_command(), seconds, loads, args.label)
    report_section(args, CHECKPOINT_SECTION, section, "checkpoint", results, failed, seconds)


SERVER_SECTION = "## Server cases"
CODE_POINTS = 0x110000  # every one, the surrogates U+D800..U+DFFF included
SERVER_BOARD = "qaiu/test/abcd/efgh"
SERVER_LEXICONS = ("small", "de")  # served by the fuzzed server: an English build and a German one (its folds)
# Every text a client sends, by endpoint: (method, path, the field fuzzed, how the case's text goes in it).
# "@" is the case's text (items: one item per code point); other values are valid, so that the text is reached.
SERVER_FIELDS = [
    ("POST", "/api/solve", "board", {"board": "qa@"}),
    ("POST", "/api/solve", "size", {"board": SERVER_BOARD, "size": "4x@"}),
    ("POST", "/api/solve", "lexicon", {"board": SERVER_BOARD, "lexicon": "@"}),
    ("POST", "/api/solve", "a field's name", {"board": SERVER_BOARD, "@": True}),
    ("POST", "/api/score", "boards", {"boards": ["qaiu/test/abcd/ef@h"]}),
    ("POST", "/api/score", "size", {"boards": [SERVER_BOARD], "size": "@"}),
    ("POST", "/api/score", "lexicon", {"boards": [SERVER_BOARD], "lexicon": "sm@"}),
    ("POST", "/api/round", "words", {"board": SERVER_BOARD, "words": ["te@"], "finished": True}),
    ("POST", "/api/round", "board", {"board": "@", "words": ["test"]}),
    ("POST", "/api/round", "lexicon", {"board": SERVER_BOARD, "words": ["test"], "lexicon": "@"}),
    ("GET", "/api/lookup", "word", {"word": ["te@"]}),
    ("GET", "/api/lookup", "lexicon", {"word": ["test"], "lexicon": "@"}),
    ("GET", "/api/words", "prefix", {"prefix": "@", "limit": "5"}),
    ("GET", "/api/words", "limit", {"prefix": "te", "limit": "@"}),
    ("GET", "/api/roll", "dice", {"dice": "@", "seed": "1"}),
    ("GET", "/api/roll", "size", {"size": "@", "seed": "1"}),
    ("GET", "/api/roll", "seed", {"seed": "1@", "count": "2"}),
    ("GET", "/api/lexicons", "a parameter's name", {"@": "1"}),
    ("GET", "/static/@", "path", {}),
    ("GET", "/api/@", "path", {}),
]
SERVER_HOWS = ("escaped", "raw")  # JSON: \uXXXX escapes / UTF-8 as it is; queries and paths: %XX / bytes as they are


def server_text(index: int, count: int) -> str:
    """Case `index` of `count`: the code points index, index + count, ... (every plane), so that the cases
    between them carry every code point once, lone surrogates as they are."""
    return "".join(chr(code) for code in range(index, CODE_POINTS, count))


def server_request(index: int, count: int) -> tuple[dict, bytes]:
    """Case `index`: what it is, and the bytes of its HTTP request."""
    from urllib.parse import quote_from_bytes

    method, path, field, shape = SERVER_FIELDS[index % len(SERVER_FIELDS)]
    how = SERVER_HOWS[index // len(SERVER_FIELDS) % len(SERVER_HOWS)]
    text = server_text(index, count)
    lexicon = SERVER_LEXICONS[index // (len(SERVER_FIELDS) * len(SERVER_HOWS)) % len(SERVER_LEXICONS)]

    def fill(value):
        if isinstance(value, list):
            return [item.replace("@", char) for item in value for char in text]
        return value.replace("@", text) if isinstance(value, str) else value

    values = {fill(name): fill(value) for name, value in shape.items()}
    values.setdefault("lexicon", lexicon)
    spec = {"case": index, "endpoint": f"{method} {path.replace('@', '...')}", "field": field, "how": how}
    if method == "POST":
        body = json.dumps(values, ensure_ascii=how == "escaped").encode("utf-8", "surrogatepass")
        head = f"POST {path} HTTP/1.1\r\nHost: fuzz\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        return spec, head.encode() + b"\r\n" + body

    def encode(part: str) -> bytes:
        data = part.encode("utf-8", "surrogatepass")
        return quote_from_bytes(data, safe="/").encode() if how == "escaped" else data

    if "@" in path:
        target = encode(path.replace("@", text))
    else:
        target = path.encode() + b"?" + b"&".join(encode(name) + b"=" + encode(item) for name, value in values.items()
                                                  for item in (value if isinstance(value, list) else [value]))
    return spec, b"GET " + target + b" HTTP/1.1\r\nHost: fuzz\r\n\r\n"


class ServerClient:
    """One keep-alive connection to the fuzzed server, opened again whenever the server closed it."""

    def __init__(self, address: tuple[str, int]) -> None:
        self.address, self.sock, self.pending = address, None, b""

    def ask(self, request: bytes, timeout: float, last: bool) -> tuple[int, dict[str, str], bytes]:
        """Send `request`; the status, headers and body of the answer ((0, {}, b"") for none). `last`: close
        the connection after it (raw bytes in a target may read as more than one request, whose other
        answers must not be taken for the next case's)."""
        import socket

        if self.sock is None:
            self.sock, self.pending = socket.create_connection(self.address, timeout=timeout), b""
        try:
            self.sock.sendall(request)
            while b"\r\n\r\n" not in self.pending:
                self.pending += self._read()
            head, _, self.pending = self.pending.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            length = int(headers.get("content-length", 0))
            while len(self.pending) < length:
                self.pending += self._read()
            body, self.pending = self.pending[:length], self.pending[length:]
            if last or headers.get("connection") == "close":
                self.close()
            return int(lines[0].split()[1]), headers, body
        except (OSError, ValueError, IndexError):
            self.close()
            return 0, {}, b""

    def _read(self) -> bytes:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed by the server")
        return chunk

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock = None


def server_verdict(spec: dict, status: int, headers: dict[str, str], body: bytes) -> tuple[str, str]:
    """(outcome, detail): `answered` for a status under 500 with a JSON body ({"error": ...} for a 4xx; the game
    page and its files excepted), else what failed."""
    if status == 0:
        return "no answer", "the connection ended without an answer"
    if status >= 500:
        return "5xx", f"{status}: {body[:120]!r}"
    if headers.get("content-type", "").startswith("application/json"):
        try:
            answer = json.loads(body)
        except ValueError:
            return "not JSON", f"{status}: {body[:120]!r}"
        if status >= 400 and not (isinstance(answer, dict) and list(answer) == ["error"]):
            return "not the error shape", f"{status}: {body[:120]!r}"
        return "answered", answer["error"] if status >= 400 else ""
    if status == 200 and spec["endpoint"] == "GET /static/...":
        return "answered", ""
    return "not JSON", f"{status} {headers.get('content-type')}: {body[:120]!r}"


def server_lexicons(work: Path) -> list[Path]:
    """The fuzzed server's lexicons: the sweep's small English build, and a German one (ß, umlauts, folds)."""
    from boggle_dawg.compiler.build import build_lexicon
    from boggle_dawg.compiler.wordlist import ListOptions
    from boggle_dawg.solver.language import load_language

    german = load_language("de")
    (work / "de.txt").write_text("straße\nstrasse\nüber\nähre\ntest\nteste\nquiz\n", encoding="utf-8")
    build_lexicon(work / "de.txt", german.charset(), work / "de", options=ListOptions(german))
    return [fuzz_cases.build_lexicons(work / "builds")["small"], work / "de"]


def server_markdown(results: list[dict], command: str, seconds: float, loads: tuple, out_of: str) -> str:
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    messages: Counter = Counter()
    failures = [r for r in results if r["outcome"] != "answered"]
    for result in results:
        table[(result["endpoint"], result["field"])][result["status"]] += 1
        if result["outcome"] == "answered" and result["detail"]:
            rule = re.sub(r"U\+[0-9A-F]+", "U+X", re.sub(r"'[^']*'", "'...'", result["detail"]))
            messages[re.sub(r"\d+", "N", rule)[:100]] += 1
    statuses = sorted({r["status"] for r in results})
    lines = [
        *section_header(SERVER_SECTION, command, f"{len(results):,} requests", seconds, loads, out_of,
                        ", one at a time, to a `dawg-solve serve` of two lexicons (the sweep's small English build, "
                        "a German one)"),
        ("Between them the cases carry every code point, U+0000 to U+10FFFF with the lone surrogates U+D800 to "
         "U+DFFF: case i of N holds the code points i, i + N, i + 2N, ..., put in one text of one endpoint in "
         "turn (a list gets one item per code point: each word judged or looked up, each board scored), written "
         "either way in turn: in JSON as \\uXXXX escapes (a lone surrogate as the escape \"\\ud800\") or as "
         "UTF-8 (a surrogate's bytes, ED A0 80, are no UTF-8), in a query or path %-encoded or as raw bytes. A "
         "case passes when it is answered under 500 in JSON, {\"error\": ...} for a 4xx (the game's files "
         "excepted), and the server logs nothing meanwhile but uvicorn's warning for malformed HTTP."), "",
        f"**{len(failures)} failing cases.**", "",
        "| endpoint | field | cases | " + " | ".join(str(s) if s else "none" for s in statuses) + " |",
        "|---|---|---:|" + "---:|" * len(statuses),
    ]
    for (endpoint, field), counts in sorted(table.items()):
        lines.append(f"| {endpoint} | {field} | {sum(counts.values())} | "
                     + " | ".join(str(counts.get(s, 0)) for s in statuses) + " |")
    lines += ["", "Failures:", ""]
    lines += [f"- case {r['case']} ({r['endpoint']} {r['field']}, {r['how']}): {r['outcome']}: {r['detail']}"
              for r in failures[:20]] or ["None."]
    lines += ["", "The 4xx errors (quoted values, code points and numbers left out):", "", "| cases | error |",
              "|---:|---|"]
    lines += [f"| {n} | {message.replace('|', '/')} |" for message, n in messages.most_common()]
    return "\n".join(lines) + "\n"


def run_server(args) -> None:
    """--server N: N requests to a real `dawg-solve serve` carrying every code point (see server_markdown)."""
    import shutil
    import subprocess

    work = Path(tempfile.mkdtemp(prefix="fuzz-server-"))
    log_path = work / "server.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen([*SOLVER_CLI, "serve", *map(str, server_lexicons(work)), "--port", "0"], cwd=REPO,
                                stderr=log, text=True)
    try:
        while not (found := re.search(r"at http://([\d.]+):(\d+)/ ", log_path.read_text())):
            if proc.poll() is not None:
                sys.exit(f"the server did not start: {log_path.read_text()}")
            time.sleep(0.1)
        client = ServerClient((found[1], int(found[2])))
        logged_at = log_path.stat().st_size
        loads = [os.getloadavg()]
        started = time.perf_counter()
        results = []
        for index in range(args.server):
            spec, request = server_request(index, args.server)
            answer = client.ask(request, args.timeout, last=spec["how"] == "raw" and request.startswith(b"GET"))
            outcome, detail = server_verdict(spec, *answer)
            with log_path.open("rb") as log:  # what the server logged meanwhile: uvicorn's warning for bad HTTP only
                log.seek(logged_at)
                new = log.read()
            logged_at += len(new)
            logged = [line for line in new.decode(errors="replace").splitlines()
                      if line.strip() and "Invalid HTTP request received." not in line]
            if logged and outcome == "answered":
                outcome, detail = "logged", " / ".join(logged)[:200]
            results.append({**spec, "status": answer[0], "outcome": outcome, "detail": detail})
        seconds = time.perf_counter() - started
        loads.append(os.getloadavg())
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(work, ignore_errors=True)
    section = server_markdown(results, this_command(), seconds, loads, args.label)
    failed = [r for r in results if r["outcome"] != "answered"]
    report_section(args, SERVER_SECTION, section, "server", results, failed, seconds)


LANGUAGE_SECTION = "## Language file cases"
LANGUAGE_PASSED = ("built", "refused")


def run_command(module: str, *args: str) -> tuple[int, str, str]:
    """A command line's main() run here as `python -m module args` runs it: (status, stdout, stderr). Anything
    but SystemExit propagates: a traceback the user would see."""
    import contextlib
    import importlib
    import io

    main, argv = importlib.import_module(module).main, sys.argv
    out, err = io.StringIO(), io.StringIO()
    sys.argv = [module, *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
        status = 0
    except SystemExit as done:
        status = done.code if isinstance(done.code, int) else int(done.code is not None)
    finally:
        sys.argv = argv
    return status, out.getvalue(), err.getvalue()


def language_rule(message: str) -> str:
    """A refusal without paths, numbers, quoted values, code points, letters or titles: which check fired."""
    text = re.sub(r'"[^"]*"', "'...'", message.removeprefix("dawgc: error: "))
    for pattern, kept in ((r"U\+[0-9A-F]{4,6}", "U+X"), (r"(no words left for charset) .*", r"\1 ... (...)"),
                          (r"(is not a letter of) .*", r"\1 <title>"), (r"(letters? )\S+( repeated)", r"\1...\2"),
                          (r"(not letters of the alphabet) \S+", r"\1 ...")):
        text = re.sub(pattern, kept, text)
    return fuzz_worker.rule_of(text)


class CaseTimeout(BaseException):
    """A case ran past its time (a BaseException: no handler of the code under test takes it for its own)."""


class LanguageWorker:
    """Runs language cases in one process, each built into the same output, so that every failed build is
    also seen to keep the build before it."""

    def __init__(self, work: Path, timeout: float) -> None:
        self.work, self.timeout = work, timeout
        self.out = work / "out"

    def manifest(self) -> bytes | None:
        path = self.out / "manifest.msgpack"
        return path.read_bytes() if path.exists() else None

    def run(self, index: int) -> dict:
        import signal

        case = fuzz_cases.language_case(index)
        result = {"case": index, "edit": case.edit, "what": case.what}
        language, words = self.work / f"case-{index}.toml", self.work / f"case-{index}.txt"
        language.write_bytes(case.language)
        words.write_bytes(case.words)
        step = "dawgc build"

        def timed_out(*_):
            raise CaseTimeout(f"no result after {self.timeout:g} s")

        signal.signal(signal.SIGALRM, timed_out)
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            before = self.manifest()
            status, _, err = run_command("boggle_dawg.dawgc_cli", "build", str(words), "--language", str(language),
                                         "--out", str(self.out), "-q", *case.options)
            lines = err.strip().splitlines()
            if status:
                if len(lines) != 1 or "Traceback" in err:
                    return {**result, "outcome": "message", "detail": err[-200:]}
                if self.manifest() != before:
                    return {**result, "outcome": "replaced", "detail": lines[0][:200]}
                return {**result, "outcome": "refused", "rule": language_rule(lines[0]), "detail": lines[0][:200]}
            step = "open"
            refused = self.refusal()
            if refused:
                return {**result, "outcome": "unopenable", "detail": f"{step}: {refused[:200]}"}
            for step, args in (("dawgc info", ["info", str(self.out)]),
                               ("dawgc info --json", ["info", str(self.out), "--json"]),
                               ("dawgc verify --source", ["verify", str(self.out), "--source", str(words)])):
                status, out, err = run_command("boggle_dawg.dawgc_cli", *args)
                if status:
                    failed = next((line for line in out.splitlines() if line.startswith("FAIL")), err.strip())
                    return {**result, "outcome": "unopenable", "detail": f"{step}: {failed[:200]}"}
            return {**result, "outcome": "built"}
        except CaseTimeout as err:
            return {**result, "outcome": "timeout", "detail": f"{err}, during {step}"}
        except Exception as err:  # noqa: BLE001 (a traceback where the user should get one line)
            return {**result, "outcome": "exception", "detail": f"{step}: {fuzz_worker._summary(err)}"}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            language.unlink()
            words.unlink()

    def refusal(self) -> str | None:
        """Why the reader refuses the build (each format and its language), or None."""
        from boggle_dawg.solver.errors import DawgError
        from boggle_dawg.solver.lexicon import open_all

        try:
            _, lexicons = open_all(self.out)
            languages = {lexicon.language for lexicon in lexicons}
        except DawgError as err:
            return str(err)
        return None if len(languages) == 1 else f"the formats read {len(languages)} languages"


def _language_worker(first: int, count: int, step: int, work: Path, timeout: float, queue) -> None:
    """Cases first, first + step, ... below count, each result put on `queue`; None when done."""
    worker = LanguageWorker(Path(tempfile.mkdtemp(prefix=f"w{os.getpid()}-", dir=work)), timeout)
    for index in range(first, count, step):
        queue.put(worker.run(index))
    queue.put(None)


def language_cli_case(index: int, work: Path, timeout: float) -> dict:
    """Case `index` through real `dawgc build` and `dawgc info` processes."""
    import subprocess

    case = fuzz_cases.language_case(index)
    language, words, out = work / f"cli-{index}.toml", work / f"cli-{index}.txt", work / f"cli-{index}"
    language.write_bytes(case.language)
    words.write_bytes(case.words)
    result = {"case": index, "edit": f"{case.edit} (CLI)", "what": case.what}
    proc = subprocess.run([*COMPILER_CLI, "build", str(words), "--language", str(language), "--out", str(out), "-q",
                           *case.options], capture_output=True, text=True, timeout=timeout, cwd=REPO)
    lines = proc.stderr.strip().splitlines()
    if proc.returncode:
        ok = len(lines) == 1 and "Traceback" not in proc.stderr and proc.returncode > 0
        return {**result, "outcome": "refused" if ok else "message", "rule": language_rule(lines[0] if lines else ""),
                "detail": proc.stderr[-200:]}
    info = subprocess.run([*COMPILER_CLI, "info", str(out)], capture_output=True, text=True, timeout=timeout, cwd=REPO)
    return {**result, "outcome": "built" if info.returncode == 0 else "unopenable", "detail": info.stderr[-200:]}


def language_markdown(results: list[dict], command: str, seconds: float, loads: tuple, out_of: str) -> str:
    table: dict[str, Counter] = defaultdict(Counter)
    rules: Counter = Counter()
    failures = [r for r in results if r["outcome"] not in LANGUAGE_PASSED]
    for result in results:
        table[result["edit"]][result["outcome"]] += 1
        if result["outcome"] == "refused":
            rules[result["rule"]] += 1
    lines = [
        *section_header(LANGUAGE_SECTION, command, f"{len(results):,} cases", seconds, loads, out_of),
        ("A case is a language file and a small word list for it (tests/fuzz_cases.py `language_case`): letters "
         "of one to three scripts, cased (Latin, Greek, Cyrillic, Armenian, Georgian, Deseret, Adlam) and caseless "
         "(Hebrew, Arabic, Devanagari, Thai, Hiragana, Hangul), with tiles, folds, a title and vowels, and words of "
         "its letters, tile faces, fold sources and capitals, given one edit: *letters* (a capital, a caseless or "
         "Cherokee alphabet, a repeat, 62+ letters, odd code points), *tiles* (random, repeated, overlapping, "
         "every letter a tile, faces of up to 41 letters, a two-letter symbol), *folds* (up to 1,500, long, "
         "from a letter of the alphabet or a capital), *fields* (one missing, of the wrong type, or out of "
         "range: titles up to 250 characters, names, vowels), *toml* (truncated, a byte changed, not UTF-8, "
         "nested 100,000 deep, over 64 KiB), *options* (`--charset`, `--lenient`, `--input-format tanglet`, "
         "`--max-length`), or *none*. Each is built with `dawgc build --language` into the output the worker's "
         "last case built (its main() run in process; the CLI rows as real processes). A case passes when the "
         "build is *refused* in one line, exit status non-zero, no traceback, the previous build left as it "
         "was, or is *built* and then opens in every reader: `open_all` and its language, `dawgc info`, "
         "`info --json` and `dawgc verify --source` (the words read back from the list as the manifest says)."),
        "", f"**{len(failures)} failing cases.**", "",
        "| edit | cases | built | refused | failed |", "|---|---:|---:|---:|---:|",
    ]
    for edit, counts in sorted(table.items()):
        failed = sum(v for k, v in counts.items() if k not in LANGUAGE_PASSED)
        detail = ", ".join(f"{k} {v}" for k, v in counts.items() if k not in LANGUAGE_PASSED)
        lines.append(f"| {edit} | {sum(counts.values())} | {counts['built']} | {counts['refused']} | "
                     f"{failed}{f' ({detail})' if detail else ''} |")
    lines += ["", "Failures:", ""]
    lines += [f"- case {r['case']} `{r['edit']}` {r['what']}: {r['outcome']}: {r.get('detail', '')}"
              for r in failures[:20]] or ["None."]
    lines += ["", "Checks that refused cases (message without paths, numbers and quoted values):", "",
              "| cases | message |", "|---:|---|"]
    lines += [f"| {n} | {rule.replace('|', '/')} |" for rule, n in rules.most_common()]
    return "\n".join(lines) + "\n"


def run_languages(args) -> None:
    """--languages N: N language files built and opened (see language_markdown), in --workers processes."""
    import multiprocessing
    import shutil

    work = Path(tempfile.mkdtemp(prefix="fuzz-languages-"))
    if args.replay:
        print(json.dumps(LanguageWorker(work, args.timeout).run(int(args.replay)), indent=2, ensure_ascii=False))
        shutil.rmtree(work, ignore_errors=True)
        return
    loads = [os.getloadavg()]
    started = time.perf_counter()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    workers = [context.Process(target=_language_worker, args=(w, args.languages, args.workers, work, args.timeout,
                                                              queue)) for w in range(args.workers)]
    for worker in workers:
        worker.start()
    results, running = [], len(workers)
    while running:
        result = queue.get()
        if result is None:
            running -= 1
            continue
        results.append(result)
        if len(results) % 500 == 0:
            failed = sum(r["outcome"] not in LANGUAGE_PASSED for r in results)
            print(f"{len(results)} language cases, {failed} failed, {time.perf_counter() - started:.0f} s",
                  file=sys.stderr)
    for worker in workers:
        worker.join()
    results.sort(key=lambda r: r["case"])
    results += [language_cli_case(i, work, 120) for i in range(args.cli_runs)]
    shutil.rmtree(work, ignore_errors=True)
    seconds = time.perf_counter() - started
    loads.append(os.getloadavg())
    section = language_markdown(results, this_command(), seconds, loads, args.label)
    failed = [r for r in results if r["outcome"] not in LANGUAGE_PASSED]
    report_section(args, LANGUAGE_SECTION, section, "language", results, failed, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="mutated builds (hostile files are added)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per case")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", metavar="PATH", help="write the summary as JSON ('-' for stdout)")
    parser.add_argument("--no-write", action="store_true", help="do not write benchmarks/results/fuzz_sweep.md")
    parser.add_argument("--label", default="this checkout", help="what code is under test, for the record")
    parser.add_argument("--replay", metavar="SPEC", help="run one case (kind/fmt/lexicon/seed) here and print it")
    parser.add_argument("--checkpoints", type=int, metavar="N", help="fuzz N checkpoints instead of lexicons")
    parser.add_argument("--cli-runs", type=int, default=6,
                        help="checkpoint or language cases also run through the CLI")
    parser.add_argument("--languages", type=int, metavar="N", help="fuzz N language files and their builds instead")
    parser.add_argument("--server", type=int, metavar="N", help="fuzz N requests to `dawg-solve serve` instead")
    args = parser.parse_args()
    if args.languages:
        run_languages(args)
        return
    if args.checkpoints:
        run_checkpoints(args)
        return
    if args.server:
        run_server(args)
        return

    work = Path(tempfile.mkdtemp(prefix="fuzz-sweep-"))
    if args.replay:
        print(json.dumps(replay(args.replay, work), indent=2))
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    fuzz_cases.build_lexicons(work / "builds")
    specs = all_specs(args.cases, args.first_seed)
    loads = [os.getloadavg()]
    failed = Counter()
    started = time.perf_counter()
    with Progress(TextColumn("fuzz"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[failed]}"),
                  TimeRemainingColumn(), console=Console(stderr=True)) as progress:
        task = progress.add_task("fuzz", total=len(specs), failed="")

        def on_result(index: int, result: dict) -> None:
            if result["outcome"] not in PASSED:
                failed[result["outcome"]] += 1
            progress.update(task, advance=1, failed=" ".join(f"{k} {v}" for k, v in failed.items()))

        results = run_parallel(specs, work, args.timeout, args.workers, on_result)
    seconds = time.perf_counter() - started
    loads.append(os.getloadavg())
    command = this_command()
    summary = summarise(specs, results)
    summary.update(seconds=round(seconds, 1), load_average=[list(x) for x in loads], label=args.label,
                   command=command)
    if not args.no_write:
        path = RESULTS / "fuzz_sweep.md"
        RESULTS.mkdir(parents=True, exist_ok=True)
        path.write_text(markdown(summary, command, seconds, loads, args.label) + "\n")
        print(f"wrote {path}", file=sys.stderr)
    if args.json:
        text = json.dumps(summary, indent=2)
        sys.stdout.write(text + "\n") if args.json == "-" else Path(args.json).write_text(text + "\n")
    print(f"{summary['cases']} cases, {summary['failed']} failed, {seconds:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
