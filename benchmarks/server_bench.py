"""The warm server under load and under fire, on loopback, against a real `dawg-solve serve` process.

Run from the repository root:
    python benchmarks/server_bench.py              # writes benchmarks/results/server.md (about 3 minutes)
    python benchmarks/server_bench.py --quick      # smoke run: fewer requests, prints the tables
    python benchmarks/server_bench.py --slow-only  # (d) alone: replaces its section of server.md (about 1 minute)

Four measurements (issues 23 and 34), all on the shipped default lexicon:
  (a) one 5x5 board (the first of ../shared/bench/dice5x5-10k.txt) solved through POST /api/solve
      (score, words and paths) by 1, 8 and 64 concurrent clients: latency p50 / p99 and requests/s;
  (b) batch scoring through POST /api/score (the file's 10,000 boards, one request) in boards/s, beside
      `dawg-solve --boards` on the same boards with the same --jobs in the same run (its own rate line,
      which leaves its start-up out, as /api/score leaves the server's out; and its whole process);
  (c) 1,000 bad requests (malformed JSON, wrong types, boards too big, unknown lexicons, bodies over the
      limit), each of which must be answered 4xx, while one more client solves the board of (a) one
      request at a time; its latency before and during the flood;
  (d) 2,000 slow connections (a quarter each: nothing sent, the request line, the headers or the body dribbled
      a byte a second) opened at once against the server's default timeouts, while the client of (c) plays:
      when and how the server closed each, its open descriptors and CPU time, and the client's latency before,
      during and after. Each end (the attacking process, the server) holds a descriptor per connection: where
      the soft limit on open files is lower than they need, the script raises it (resource.setrlimit; the
      server inherits it) and says so.
The solving clients are threads of this process, each with a keep-alive connection of the standard library's
http.client; the flood comes from asyncio tasks of httpx2 in a process of its own. All share the machine's
cores with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

from common import (
    RESULTS,
    SOLVER_CLI,
    Conditions,
    add_options,
    load_average,
    measure_interleaved,
    publish,
    repeats_from,
    runs_cell,
    shared,
    stats_cells,
    timed_call,
)

CONCURRENCY = (1, 8, 64)
TARGET_P50_MS = 5.0
TARGET_BATCH_SHARE = 0.8
FAULTS = 1_000
FAULT_CLIENTS = 8
SLOW_CLIENTS = 2_000
SLOW_CAP_S = 90.0  # the longest this side keeps a slow connection open
SLOW_KINDS = {  # what a slow connection sends first, then a byte of each second
    "nothing sent": (b"", b""),
    "request line dribbled": (b"PO", b"S"),
    "headers dribbled": (b"POST /api/solve HTTP/1.1\r\nHost: bench\r\nX-Slow: ", b"a"),
    "body dribbled": (b"POST /api/solve HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100000\r\n\r\n{", b" "),
}
SLOW_SECTION = "## Slow clients while a client plays"


def start_server(jobs: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([*SOLVER_CLI, "serve", "--port", "0", "--jobs", str(jobs)], stderr=subprocess.PIPE,
                            text=True)
    for line in proc.stderr:
        found = re.search(r"at (http://\S+)/ ", line)
        if found:
            return proc, found[1]
    sys.exit(f"the server did not start (status {proc.wait()})")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Solver:
    """One client: a keep-alive connection (the standard library's, the lightest client there is, so that the
    figures are the server's more than the client's) that solves one board and checks its score."""

    def __init__(self, url: str, board: str, expected: int) -> None:
        self.host, self.port = urlsplit(url).hostname, urlsplit(url).port
        self.body, self.expected = json.dumps({"board": board}).encode(), expected
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def solve(self) -> float:
        """One request; its latency in seconds."""
        started = time.perf_counter()
        self.connection.request("POST", "/api/solve", self.body, {"content-type": "application/json"})
        response = self.connection.getresponse()
        body = response.read()
        latency = time.perf_counter() - started
        if response.status != 200 or json.loads(body)["score"] != self.expected:
            sys.exit(f"/api/solve answered {response.status}: {body[:200]!r}")
        return latency


def hammer(clients: list[Solver], requests: int) -> tuple[list[float], float]:
    """`requests` solves shared by the clients, each on a thread of its own: every latency, and the wall time."""
    share = [requests // len(clients) + (i < requests % len(clients)) for i in range(len(clients))]
    started = time.perf_counter()
    with ThreadPoolExecutor(len(clients)) as pool:
        runs = list(pool.map(lambda pair: [pair[0].solve() for _ in range(pair[1])], zip(clients, share)))
    return [latency for run in runs for latency in run], time.perf_counter() - started


BAD_REQUESTS = [
    ("malformed JSON", dict(content=b'{"board": "abc', headers={"content-type": "application/json"})),
    ("wrong type", dict(json={"board": 12345})),
    ("too many cells", dict(json={"board": "e" * 64})),
    ("unknown lexicon", dict(json={"board": "abcd", "lexicon": "../../etc/passwd"})),
    ("body over the limit", dict(content=b" " * ((1 << 20) + 1), headers={"content-type": "application/json"})),
]


def flood(url: str, count: int) -> tuple[dict[str, dict[int | str, int]], float]:
    """`count` bad requests, the kinds in turn, by FAULT_CLIENTS tasks (run in a process of its own, so that
    the probing client's latency is the server's, not this loop's): {kind: {status: count}}, and the wall time."""
    import httpx2

    answers: dict[str, dict[int | str, int]] = {kind: {} for kind, _ in BAD_REQUESTS}
    sent = 0

    async def worker(client) -> None:
        nonlocal sent
        while sent < count:
            kind, request = BAD_REQUESTS[sent % len(BAD_REQUESTS)]
            sent += 1
            try:
                status = (await client.post(f"{url}/api/solve", **request)).status_code
            except Exception as err:  # noqa: BLE001 (a refused or reset connection is recorded, not raised)
                status = type(err).__name__
            answers[kind][status] = answers[kind].get(status, 0) + 1

    async def attack() -> float:
        async with httpx2.AsyncClient(timeout=60, limits=httpx2.Limits(max_connections=FAULT_CLIENTS)) as client:
            started = time.perf_counter()
            await asyncio.gather(*(worker(client) for _ in range(FAULT_CLIENTS)))
            return time.perf_counter() - started

    return answers, asyncio.run(attack())


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far, all its threads (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def latency_table(url: str, board: str, expected: int, requests: int, server_pid: int) -> list[str]:
    lines = ["| clients | requests | p50 ms | p99 ms | requests/s | server CPU ms per request |",
             "|---:|---:|---:|---:|---:|---:|"]
    for count in CONCURRENCY:
        clients = [Solver(url, board, expected) for _ in range(count)]
        hammer(clients, 2 * count)  # open the connections
        total = max(requests, 10 * count)
        cpu = cpu_seconds(server_pid)
        latencies, wall = hammer(clients, total)
        cpu = (cpu_seconds(server_pid) - cpu) / total * 1e3
        p50, p99 = percentile(latencies, 0.5) * 1e3, percentile(latencies, 0.99) * 1e3
        lines.append(f"| {count} | {total:,} | {p50:.2f} | {p99:.2f} | {total / wall:,.0f} | {cpu:.2f} |")
        print(f"  {count} clients: p50 {p50:.2f} ms, p99 {p99:.2f} ms, {total / wall:,.0f} requests/s", file=sys.stderr)
    return lines


def probe_table(note: str, during_phase: str, before: list[float], during: list[float], after: list[float]) -> list[str]:
    """The lines of the probing client's latency table (before, during an attack, after), `note` said of it."""
    lines = [f"The parallel client's /api/solve latency, one request at a time ({note}):", "",
             "| phase | requests | p50 ms | p99 ms |", "|---|---:|---:|---:|"]
    for phase, values in (("before", before), (during_phase, during), ("after", after)):
        lines.append(f"| {phase} | {len(values):,} | {percentile(values, 0.5) * 1e3:.2f} | "
                     f"{percentile(values, 0.99) * 1e3:.2f} |")
    return lines


def fault_table(url: str, board: str, expected: int, faults: int, probes: int) -> tuple[list[str], bool]:
    probe = Solver(url, board, expected)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as attacker:
        attacker.submit(int, 0).result()  # the attacking process started before the flood
        hammer([probe], 20)
        before, _ = hammer([probe], probes)
        flooding = attacker.submit(flood, url, faults)
        during: list[float] = []
        while not flooding.done():
            during.append(probe.solve())
        answers, wall = flooding.result()
        after, _ = hammer([probe], probes)
    all_4xx = all(isinstance(status, int) and 400 <= status < 500 for kinds in answers.values() for status in kinds)
    lines = [f"{faults:,} bad requests in {wall:.2f} s ({faults / wall:,.0f}/s) from {FAULT_CLIENTS} clients (httpx2, "
             f"asyncio) in a process of their own; how each kind was answered:", "",
             "| kind | answers |", "|---|---|"]
    lines += [f"| {kind} | {', '.join(f'{n} x {status}' for status, n in sorted(kinds.items(), key=str))} |"
              for kind, kinds in answers.items()]
    lines += ["", *probe_table("the flooding process needs a core of its own too: on this machine's cores, shared "
                               "with the server, part of a rise is theirs", "during the flood", before, during, after)]
    print(f"  flood: {json.dumps(answers)}; probe p50 before {percentile(before, 0.5) * 1e3:.2f} ms, during "
          f"{percentile(during, 0.5) * 1e3:.2f} ms", file=sys.stderr)
    return lines, all_4xx


def enough_descriptors(needed: int) -> str:
    """Raise the soft limit on open files to `needed` where it is lower (the server started after inherits it);
    what was done, for the record."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return f"the soft limit on open files, {soft:,}, was enough"
    if hard != resource.RLIM_INFINITY and hard < needed:
        sys.exit(f"{needed:,} open files needed, and the hard limit is {hard:,}: use fewer --slow-clients")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return f"the script raised the soft limit on open files from {soft:,} to {needed:,} (resource.setrlimit)"


def slow_wave(url: str, count: int, cap: float) -> tuple[list[tuple[str, float | None, bytes]], float]:
    """`count` slow connections, the kinds of SLOW_KINDS in turn, opened at once, each sending its first bytes
    and then a byte a second until the server closes it (at most `cap` seconds; run in a process of its own):
    (kind, seconds until closed or None, the start of the server's answer) each, and the wall time."""
    host, port = urlsplit(url).hostname, urlsplit(url).port
    kinds = list(SLOW_KINDS)

    async def one(kind: str) -> tuple[str, float | None, bytes]:
        first, dribble = SLOW_KINDS[kind]
        started, answer = time.perf_counter(), b""  # before connecting: the server's clock starts when it accepts
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(first)

        async def dribbling() -> None:
            while dribble and not writer.is_closing():
                await asyncio.sleep(1)
                writer.write(dribble)

        sending = asyncio.create_task(dribbling())
        try:
            async with asyncio.timeout(cap):
                while chunk := await reader.read(65536):
                    answer += chunk
            closed = time.perf_counter() - started
        except TimeoutError:
            closed = None
        except ConnectionError:  # reset: closed all the same
            closed = time.perf_counter() - started
        finally:
            sending.cancel()
            writer.close()
        return kind, closed, answer[:12]

    async def wave() -> list[tuple[str, float | None, bytes]]:
        return await asyncio.gather(*(one(kinds[i % len(kinds)]) for i in range(count)))

    started = time.perf_counter()
    return asyncio.run(wave()), time.perf_counter() - started


def descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def slow_section(url: str, board: str, expected: int, count: int, probes: int, server_pid: int, limit_note: str,
                 conditions: Conditions) -> list[str]:
    """(d): the slow wave while a client solves, as the lines of its section of the results."""
    probe = Solver(url, board, expected)
    load_before = load_average()
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as attacker:
        attacker.submit(int, 0).result()  # the attacking process started before the wave
        hammer([probe], 20)
        before, _ = hammer([probe], probes)
        fds_before, cpu = descriptors(server_pid), cpu_seconds(server_pid)
        waving = attacker.submit(slow_wave, url, count, SLOW_CAP_S)
        during: list[float] = []
        peak = fds_before
        while not waving.done():
            during.append(probe.solve())
            if len(during) % 50 == 0:
                peak = max(peak, descriptors(server_pid))
            time.sleep(0.01)  # a player, not a flood: about 100 requests a second at most
        results, wall = waving.result()
        cpu = cpu_seconds(server_pid) - cpu
        after, _ = hammer([probe], probes)
        fds_after = descriptors(server_pid)
    lines = [SLOW_SECTION, "",
             f"{count:,} connections ({count // len(SLOW_KINDS):,} of each kind) opened at once by asyncio tasks in a "
             f"process of their own, each sending its first bytes and then one byte a second, kept until the server "
             f"closed them (at most {SLOW_CAP_S:g} s), against `dawg-solve serve`'s default timeouts (headers 10 s, "
             f"body 30 s, keep-alive 5 s); {limit_note}. The wave took {wall:.1f} s; how the server dealt with "
             f"each kind:", "",
             "| kind | connections | closed by the server | seconds to close: min | median | max | answered |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for kind in SLOW_KINDS:
        mine = [(closed, start) for name, closed, start in results if name == kind]
        times = sorted(closed for closed, _ in mine if closed is not None)
        answers: dict[str, int] = {}
        for _, start in mine:
            status = " ".join(start.decode("latin-1").split()[1:2]) or "nothing"
            answers[status] = answers.get(status, 0) + 1
        spread = (f"{times[0]:.1f} | {statistics.median(times):.1f} | {times[-1]:.1f}" if times else "- | - | -")
        lines.append(f"| {kind} | {len(mine):,} | {len(times):,} | {spread} | "
                     f"{', '.join(f'{n:,} x {status}' for status, n in sorted(answers.items()))} |")
    lines += ["", f"The server's open descriptors: {fds_before:,} before the wave, {peak:,} at most during it (sampled "
              f"every 50 requests of the client), {fds_after:,} after; its CPU time over the wave: {cpu:.1f} s in "
              f"{wall:.1f} s.", "",
              *probe_table("at most about 100 a second during the wave; the attacking process shares the machine's "
                           "cores with the server", "during the wave", before, during, after)]
    print(f"  slow: {wall:.1f} s; probe p50 before {percentile(before, 0.5) * 1e3:.2f} ms, during "
          f"{percentile(during, 0.5) * 1e3:.2f} ms; descriptors {fds_before} -> {peak} -> {fds_after}", file=sys.stderr)
    return [*lines, "", conditions.note(load_before, load_average()), ""]


def replace_section(path: Path, heading: str, section: str) -> None:
    """Put `section` in place of the one under `heading` in the results file (or at its end)."""
    text = path.read_text()
    start = text.find(heading)
    end = text.find("\n## ", start + 1) if start >= 0 else -1
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    path.write_text(text)


def batch_measurements(url: str, boards: list[str], boards_file, jobs: int, expected: list[int]):
    import httpx2

    client = httpx2.Client(timeout=120)
    cli_rates: list[float] = []

    def api() -> float:
        response = client.post(f"{url}/api/score", json={"boards": boards})
        if response.status_code != 200 or response.json()["scores"] != expected:
            sys.exit(f"/api/score answered {response.status_code}: {response.text[:200]}")

    def cli() -> None:
        run = subprocess.run([*SOLVER_CLI, "--boards", str(boards_file), "--jobs", str(jobs)], capture_output=True,
                             text=True)
        if run.returncode != 0 or [int(x) for x in run.stdout.split()] != expected:
            sys.exit(f"dawg-solve --boards failed: {run.stderr[-300:]}")
        cli_rates.append(float(re.search(r": ([\d,]+) boards/s", run.stderr)[1].replace(",", "")))

    return {"API": lambda: timed_call(api)[0], "CLI": lambda: timed_call(cli)[0]}, cli_rates


def walk_times(board: str, times: int) -> tuple[float, float]:
    """Median milliseconds of listing a board's words in this process, without HTTP: with the compiled walk
    /api/solve runs, and with `Lexicon.words` (CPython, what `dawg-solve BOARD` runs)."""
    from boggle_dawg.defaults import lexicon_or_default
    from boggle_dawg.server.served import close_served, open_served
    from boggle_dawg.solver.board import parse_board

    served = open_served([None], None, jobs=1)
    one, parsed = next(iter(served.values())), parse_board(board)
    lex = lexicon_or_default(None)
    compiled = statistics.median(timed_call(lambda: one.words(parsed))[0].wall for _ in range(times)) * 1e3
    python = statistics.median(timed_call(lambda: lex.words(board))[0].wall for _ in range(times)) * 1e3
    close_served(served)
    return compiled, python


def slow_only(args, board: str, count: int, probes: int, limit_note: str, conditions: Conditions) -> None:
    """--slow-only: (d) on a server of its own, its section put in place of the one in the results file."""
    import httpx2

    proc, url = start_server(args.jobs)
    try:
        expected = httpx2.post(f"{url}/api/solve", json={"board": board}, timeout=60).json()["score"]
        section = "\n".join(slow_section(url, board, expected, count, probes, proc.pid, limit_note, conditions))
    finally:
        proc.terminate()
        proc.wait(30)
    out = args.out or (None if args.quick else RESULTS / args.results)
    if out:
        replace_section(Path(out), SLOW_SECTION, section)
        print(f"wrote {out}", file=sys.stderr)
    else:
        print(section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(parser, runs=5, max_runs=8, quick_runs=2, results="server.md")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="scoring threads of the server and the CLI "
                                                                         "(default: every core)")
    parser.add_argument("--requests", type=int, default=None, help="solves per concurrency (default 500; 100 with --quick)")
    parser.add_argument("--slow-clients", type=int, default=None,
                        help=f"slow connections of (d) (default {SLOW_CLIENTS:,}; 200 with --quick)")
    parser.add_argument("--slow-only", action="store_true",
                        help="measure (d) alone and put it in place of its section of the results file")
    args = parser.parse_args()
    requests = args.requests or (100 if args.quick else 500)
    faults = 200 if args.quick else FAULTS
    slow_clients = args.slow_clients or (200 if args.quick else SLOW_CLIENTS)
    repeats = repeats_from(args)

    conditions = Conditions()
    limit_note = enough_descriptors(slow_clients + 512)  # each end holds a descriptor per connection
    boards_file = shared("bench", "dice5x5-10k.txt")
    boards = boards_file.read_text().split()
    subprocess.run([*SOLVER_CLI, boards[0]], check=True, capture_output=True)  # the default lexicon, compiled once
    if args.slow_only:
        slow_only(args, boards[0], slow_clients, requests // 2, limit_note, conditions)
        return
    proc, url = start_server(args.jobs)
    try:
        import httpx2

        first = httpx2.post(f"{url}/api/solve", json={"board": boards[0]}, timeout=60).json()
        expected = httpx2.post(f"{url}/api/score", json={"boards": boards}, timeout=120).json()["scores"]
        assert expected[0] == first["score"]

        print("one board:", file=sys.stderr)
        load_a = load_average()
        walk_ms = walk_times(boards[0], requests // 5)
        latency = latency_table(url, boards[0], first["score"], requests, proc.pid)
        load_b = load_average()

        print("batch:", file=sys.stderr)
        measurements, cli_rates = batch_measurements(url, boards, boards_file, args.jobs, expected)
        series = measure_interleaved(measurements, repeats, lambda line: print(f"  {line}", file=sys.stderr))
        load_c = load_average()
        api_rates, cli_wall = series["API"].rates(len(boards)), series["CLI"].rates(len(boards))
        cli_own = statistics.median(cli_rates)
        share = api_rates.median / cli_own
        batch = ["| how | min | median | max | spread | runs |", "|---|---:|---:|---:|---:|---:|",
                 f"| POST /api/score (one request, JSON both ways) | {stats_cells(api_rates)} | "
                 f"{runs_cell(series['API'], repeats)} |",
                 f"| `dawg-solve --boards`, its own rate line (start-up left out) | "
                 f"{stats_cells(type(api_rates).of(cli_rates))} | {len(cli_rates)} |",
                 f"| `dawg-solve --boards`, whole process (start-up included) | {stats_cells(cli_wall)} | "
                 f"{runs_cell(series['CLI'], repeats)} |",
                 "", f"The API's median is {share:.0%} of the command line's own rate (target: at least "
                 f"{TARGET_BATCH_SHARE:.0%}); scores equal in every run."]

        print("faults:", file=sys.stderr)
        faults_lines, all_4xx = fault_table(url, boards[0], first["score"], faults, requests // 2)
        load_d = load_average()
        if not all_4xx:
            print("  some bad requests were not answered 4xx", file=sys.stderr)

        print("slow clients:", file=sys.stderr)
        slow_lines = slow_section(url, boards[0], first["score"], slow_clients, requests // 2, proc.pid, limit_note,
                                  conditions)
    finally:
        proc.terminate()
        status = proc.wait(30)
    conditions.finish()

    p50_one = float(latency[2].split("|")[3])
    text = "\n".join([
        "# Server benchmark", "",
        conditions.header(), "",
        f"A real `dawg-solve serve --jobs {args.jobs}` on 127.0.0.1 with the shipped default lexicon (sowpods, "
        f"trie); the solving clients (threads, each with a keep-alive `http.client` connection) run in the "
        f"benchmark's own process on the same machine, sharing its {os.cpu_count()} cores with the server (and, "
        f"on the developers' machine, with whatever else runs there: see the load averages). The server stopped "
        f"on SIGTERM with status {status}.", "",
        f"## One 5x5 board, solved ({boards[0]}: {first['score']} points, {first['word_count']} words with paths)",
        "", f"POST /api/solve; target: p50 under {TARGET_P50_MS:g} ms with one client "
            f"({'met' if p50_one < TARGET_P50_MS else 'missed'}: {p50_one:.2f} ms). Listing the board's words "
            f"without HTTP, in the benchmark's own process in the same run (median): {walk_ms[0]:.2f} ms with the "
            f"compiled walk the endpoint runs, {walk_ms[1]:.2f} ms with `Lexicon.words` in CPython (what "
            f"`dawg-solve BOARD` runs, to start without numba); the rest of a request is HTTP, JSON and the "
            f"hand-over to a thread. The server's CPU time per request (its own, whatever else runs) is what "
            f"a request costs when a core is free; the latencies also hold the waits for a core.", "",
        *latency, "", conditions.note(load_a, load_b), "",
        f"## Batch scoring ({len(boards):,} boards of {boards_file.name}, --jobs {args.jobs}, boards/s)", "",
        f"{repeats.describe()}, API and CLI in rotating order.", "",
        *batch, "", conditions.note(load_b, load_c), "",
        "## Bad requests while a client plays", "",
        *faults_lines, "",
        f"Every bad request answered 4xx: {'yes' if all_4xx else 'NO'}.", "",
        conditions.note(load_c, load_d), "",
        *slow_lines])
    publish(args, text)


if __name__ == "__main__":
    main()
