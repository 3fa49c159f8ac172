"""What `dawg-solve` and `dawgc` share: the run wrapper, progress displays, option checks.

`run_cli` gives both programs one behaviour:

- bad input (`DawgError`) is one line, `prog: error: message`, exit status 1;
  a command line that cannot run as given (unknown option, wrong arguments, an
  option value out of range) is one line too, exit status 2;
- a closed output pipe (`dawg-solve roll -n 100000 | head -3`) ends the
  program quietly with status 141 (128 + SIGPIPE), as a shell reports a tool
  killed by SIGPIPE, so `set -o pipefail` scripts can tell it from an error;
  standard output refusing a write (a full disk, /dev/full) is one line,
  `prog: error: standard output: No space left on device`, exit status 1;
- SIGTERM (`kill`, `timeout`, a batch system's time limit) stops a command
  (any but the one-board form, which ends at once as any program would) as
  Ctrl-C does, with what Ctrl-C keeps kept and said (a proof's checkpoint, a
  search's best boards) and the engine's workers shut down, then status 143
  (128 + SIGTERM) and a line that says "terminated", whether or not Ctrl-C could
  stop the command (SIGINT ignored, as in a shell's background job or under
  nohup: SIGTERM is then the one way to stop it, and still shuts it down in order);
- every command takes `-h`/`--help` and `--version`; placeholders in help read
  TEXT, INTEGER, FLOAT, PATH.

Progress displays (`progress_bar`, `StatusLine`) draw on stderr and never take
stdout over: results written while they show still go to stdout, whether it
is a file, a pipe or the terminal.
"""

from __future__ import annotations

import errno
import functools
import inspect
import math
import os
import sys
from collections.abc import Callable
from typing import Self

from .program import PROG
from .solver import __version__
from .solver.errors import DawgError, ParameterError

USAGE_STATUS = 2
NAMES_SOMETHING = {"--size", "--dice", "--alphabet", "--rules", "--language", "--start", "--format", "--method",
                   "--charset", "--backend"}  # options an empty value cannot mean (see _not_empty)
PIPE_CLOSED_STATUS = 128 + 13  # 128 + SIGPIPE, what a shell reports for a tool killed by SIGPIPE
INTERRUPTED_STATUS = 128 + 2  # Ctrl-C (SIGINT)
TERMINATED_STATUS = 128 + 15  # SIGTERM
MAX_SECONDS = 1e6  # longest --seconds accepted (about 11.5 days): beyond it a value is a typo
PLACEHOLDERS = {"str": "TEXT", "text": "TEXT", "int": "INTEGER", "integer": "INTEGER", "float": "FLOAT",
                "path": "PATH", "filename": "PATH"}
HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}

# numpy starts OpenBLAS's thread pool when it is imported (about 0.05 CPU-s: a third of a one-board run's
# CPU beyond the interpreter's, a seventh of a whole 10,000-board batch), and no command multiplies matrices:
# both programs import this module before numpy, so they run with one BLAS thread unless the user set one.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class UsageError(DawgError):
    """A command line that cannot be run as given: wrong arguments or an option value out of range
    (exit status 2). The library's own bad values are ParameterErrors, named here as their flags."""


class _PipeClosed(Exception):
    """Standard output's reader has gone (raised out of a command, past typer's own handling)."""


class _OutputFailed(Exception):
    """Standard output refused a write (a full disk, /dev/full, an I/O error): its reason, raised out of a command."""


class _Interrupted(Exception):
    """Ctrl-C in a command, raised past typer's own handling (a silent exit 130 in typer 0.28)."""


_terminated = False  # SIGTERM arrived (and stops the command as Ctrl-C would)


def stop_cause() -> str:
    """What stopped an interrupted command, as its messages name it."""
    return "SIGTERM" if _terminated else "Ctrl-C"


def _stop_on_sigterm_as_on_ctrl_c() -> None:
    """Route SIGTERM through the command's Ctrl-C handling (see the module docstring). SIGINT is raised
    rather than KeyboardInterrupt, so that where the engine holds Ctrl-C back (while a cluster starts)
    it holds SIGTERM back too. Only `run_cli`'s commands do this: the one-board form (`run_plain`) ends
    within a fraction of a second, has nothing to keep, and starts without the signal module."""
    import signal

    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def terminate(_signum, _frame) -> None:
        global _terminated
        if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL):  # Ctrl-C cannot stop it:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # the command is stopping, as it would on Ctrl-C
        _terminated = True
        signal.raise_signal(signal.SIGINT)

    signal.signal(signal.SIGTERM, terminate)


def plural(noun: str, count: int) -> str:
    """`noun` for one, `noun + "s"` for any other count."""
    return noun if count == 1 else noun + "s"


ARGUMENT_NAMES = {"letters": "LETTERS", "board": "BOARD"}  # API parameters the CLIs take as arguments


def flag_name(parameter: str) -> str:
    """How the command line names an API parameter: its flag, or its argument's placeholder."""
    return ARGUMENT_NAMES.get(parameter, "--" + parameter.replace("_", "-"))


def cli_message(err: DawgError) -> str:
    """An error's message as the command line says it: the API parameters it names are written as
    the flags that set them (the library's own message names them as the API does)."""
    from .solver.board import ForeignLetterError

    if isinstance(err, ParameterError):
        return f"{flag_name(err.name)}: {err.problem}"
    if isinstance(err, ForeignLetterError):
        return err.worded(flag_name)
    return str(err)


def run_cli(app, prog: str, meant: str | None = None) -> None:
    """Run a typer app as `prog` with the shared behaviour described in the module docstring; `meant`
    is a command the user may have mistyped, offered after a usage error."""
    import typer

    try:
        from typer import _click as click  # typer 0.28 vendors click
    except ImportError:
        import click
    command = typer.main.get_command(app)
    _prepare(command, prog)
    _stop_on_sigterm_as_on_ctrl_c()
    try:
        status = command.main(prog_name=prog, standalone_mode=False)
    except _PipeClosed:
        _pipe_closed()
    except _OutputFailed as err:
        _output_failed(prog, err)
    except getattr(click.exceptions, "NoArgsIsHelpError", ()) as err:  # a bare `dawgc`: its help
        err.show()
        sys.exit(USAGE_STATUS)
    except click.exceptions.UsageError as err:
        where = err.ctx.command_path if err.ctx else prog
        hint = f"; or did you mean '{prog} {meant}'?" if meant else ""
        _fail(prog, f"{err.format_message()} (see '{where} --help'{hint})", USAGE_STATUS)
    except typer.Abort as err:
        _fail_for(prog, KeyboardInterrupt(*err.args))
    except (DawgError, KeyboardInterrupt, _Interrupted) as err:
        _fail_for(prog, err)
    except click.exceptions.ClickException as err:
        _fail(prog, err.format_message(), err.exit_code)
    if isinstance(status, int) and status:  # a command's typer.Exit(status), returned in this mode
        sys.exit(status)


def run_plain(action: Callable[[], None], prog: str) -> None:
    """Run `action` as run_cli runs a command, without typer: the same errors, statuses and
    closed-pipe behaviour for what the one-board path can raise."""
    try:
        _guard(action)()
    except _PipeClosed:
        _pipe_closed()
    except _OutputFailed as err:
        _output_failed(prog, err)
    except (DawgError, KeyboardInterrupt, _Interrupted) as err:
        _fail_for(prog, err)


def _fail_for(prog: str, err: BaseException) -> None:
    """Exit with one line on stderr for bad input (1), a bad command line (2), Ctrl-C (130) or SIGTERM (143)."""
    if isinstance(err, (KeyboardInterrupt, _Interrupted)):  # a command may say what was kept
        word, status = ("terminated", TERMINATED_STATUS) if _terminated else ("interrupted", INTERRUPTED_STATUS)
        _fail(prog, f"{word}: {err}" if str(err) else word, status)
    elif isinstance(err, UsageError):
        _fail(prog, str(err), USAGE_STATUS)
    elif isinstance(err, ParameterError):
        _fail(prog, cli_message(err), USAGE_STATUS)
    else:
        _fail(prog, cli_message(err), 1)


def _prepare(command, prog: str) -> None:
    """Give every command --version, click-style placeholders and closed-pipe handling."""
    from typer.core import TyperOption

    def show_version(ctx, _param, value) -> None:
        if value and not ctx.resilient_parsing:
            print(f"{prog} {__version__}")
            ctx.exit()

    for cmd in _commands(command):
        if cmd.callback is not None:
            cmd.callback = _guard(cmd.callback)
        if cmd.help and not cmd.short_help:  # the commands list shows its first paragraph whole, not cut at "..."
            cmd.short_help = " ".join(inspect.cleandoc(cmd.help).split("\n\n")[0].split())
        for param in cmd.params:
            if param.param_type_name == "argument":
                _name_argument(param)
            elif param.metavar is None and not getattr(param, "is_flag", False):
                param.metavar = PLACEHOLDERS.get(param.type.name, param.type.name.upper())
            if NAMES_SOMETHING & set(param.opts):
                param.callback = _not_empty(param.callback)
        cmd.params.append(TyperOption(param_decls=["--version"], is_flag=True, default=False, expose_value=False,
                                      is_eager=True, callback=show_version, help="Show the version and exit."))


def _not_empty(callback: Callable | None) -> Callable:
    """An option's callback that first refuses an empty value (`--size ''`): it names something, and an
    empty name is a slip (an unset shell variable), not a request for the default."""

    def check(ctx, param, value):
        if value == "":
            raise UsageError(f"{param.opts[0]}: empty; give a value or leave the option out")
        return callback(ctx, param, value) if callback else value

    return check


def _name_argument(param) -> None:
    """Show an argument as click does: NAME, or [NAME] when optional (typer writes {NAME})."""
    name = param.metavar or param.name.upper()
    in_usage = name if param.required or name.startswith("[") else f"[{name}]"
    param.metavar = name
    param.make_metavar = lambda *args, usage=False, **kwargs: in_usage if usage else name


def _commands(command) -> list:
    found = [command]
    for sub in getattr(command, "commands", {}).values():
        found.extend(_commands(sub))
    return found


def _guard(callback: Callable) -> Callable:
    """The command, with its output flushed inside it, a closed pipe raised as _PipeClosed and
    Ctrl-C as _Interrupted (typer would otherwise turn them into silent exit statuses 1 and 130)."""

    @functools.wraps(callback)
    def run(*args, **kwargs):
        try:
            result = callback(*args, **kwargs)
            sys.stdout.flush()
            return result
        except BrokenPipeError:
            raise _PipeClosed from None
        except KeyboardInterrupt as err:
            raise _Interrupted(*err.args) from None
        except OSError as err:
            if _stdout_refused(err):
                raise _OutputFailed(err.strerror or str(err)) from None
            raise

    return run


def _stdout_refused(err: OSError) -> bool:
    """Whether `err` is standard output refusing a write: a write error that names no file (a file's
    own errors are DawgErrors naming it), or a flush of what stdout still holds that fails again."""
    if err.filename is None and err.errno in (errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT):
        return True
    try:
        sys.stdout.flush()
    except OSError:
        return True
    return False


def _pipe_closed() -> None:
    _drop_stdout()
    sys.exit(PIPE_CLOSED_STATUS)


def _output_failed(prog: str, err: _OutputFailed) -> None:
    _drop_stdout()
    _fail(prog, f"standard output: {err}", 1)


def _drop_stdout() -> None:
    # Whatever is still buffered for stdout can never be written: point the descriptor at
    # /dev/null so the interpreter's flush at exit neither fails nor complains.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _fail(prog: str, message: str, status: int) -> None:
    print(f"{prog}: error: {message}", file=sys.stderr)
    sys.exit(status)


# --- option checks ------------------------------------------------------------------


def finite_option(name: str, value: float | None, low: float, high: float,
                  low_inclusive: bool = False) -> float | None:
    """`value` of option `name`, or UsageError unless it is a finite number in (low, high]
    ([low, high] with `low_inclusive`). None (option not given) passes."""
    if value is None:
        return None
    above = value >= low if low_inclusive else value > low
    if not (math.isfinite(value) and above and value <= high):
        bound = "at least" if low_inclusive else "more than"
        raise UsageError(f"{name}: must be a number {bound} {low:g} and at most {high:g}, got {value:g}")
    return value


def jobs_option(jobs: int) -> int:
    """Threads for `--jobs`: 0 means one per core; more than the cores is capped, said on stderr."""
    from .solver.backends import resolve_jobs, usable_cores

    threads = resolve_jobs(jobs)
    if jobs > threads:
        cores = usable_cores()
        print(f"{PROG}: --jobs {jobs}: this machine has {cores} {plural('core', cores)}; "
              f"using {threads}", file=sys.stderr)
    return threads


def device_help() -> str:
    """--device's help, from the backends' registry: each backend, then what auto picks."""
    from .solver.backends import AUTO, BACKENDS

    first, *others = BACKENDS
    named = [f"{name} ({backend.about})" if backend.about else name for name, backend in BACKENDS.items()]
    return (f"Where boards are scored: {', '.join(named)} or {AUTO} ({' or '.join(others)} when usable, else "
            f"{first}, said on stderr).")


def device_option(device: str) -> str:
    """The scoring backend for `--device`; when auto falls back to the CPU, one line on stderr says why."""
    from .solver.backends import choose_backend

    backend, note = choose_backend(device)
    if note:
        print(f"{PROG}: --device auto: {note}", file=sys.stderr)
    return backend


RULES_HELP = ("Rules of play: standard (3+ letters, the classic card), big (4+ letters), words (every word one "
              "point) or a rules file (TOML, see docs/rules.md) [default: the lexicon's, else standard].")


def named_or_file(flag: str, spec: str, load: Callable):
    """`load(spec)` for an option that takes a built-in name or a file: a name that is neither is a
    wrong option value (a usage error, exit 2), as an unknown --dice or --format is; a bad file is
    bad input (its DawgError, exit 1)."""
    try:
        return load(spec)
    except DawgError as err:
        if os.path.lexists(spec):
            raise
        raise UsageError(f"{flag}: {err}") from None


def rules_option(spec: str | None, default=None):
    """The Rules that `--rules` names (`default` when not given: a lexicon's own rules)."""
    from .solver.rules import load_rules

    return default if spec is None else named_or_file("--rules", spec, load_rules)


def language_option(spec: str):
    """The Language that `--language` names: a built-in language or a language file."""
    from .solver.language import load_language

    return named_or_file("--language", spec, load_language)


def workers_label(backend: str, jobs: int) -> str:
    """What scored the boards, for timing lines: '4 jobs' on the CPU, else the backend's name."""
    return f"{jobs} {plural('job', jobs)}" if backend == "cpu" else backend


# --- progress on stderr ----------------------------------------------------------------


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def progress_bar(*columns):
    """A transient rich Progress on stderr that leaves stdout alone (unless stdout is the
    terminal too, where results are printed above the bar)."""
    from rich.progress import Progress

    return Progress(*columns, console=_stderr_console(), transient=True,
                    redirect_stdout=sys.stdout.isatty(), redirect_stderr=True)


class StatusLine:
    """A spinner and one line of text on stderr, updated in place; leaves stdout alone."""

    def __init__(self, text: str) -> None:
        from rich.live import Live
        from rich.spinner import Spinner

        self.spinner = Spinner("dots", text=text, style="status.spinner")
        self.live = Live(self.spinner, console=_stderr_console(), transient=True, refresh_per_second=12.5,
                         redirect_stdout=sys.stdout.isatty(), redirect_stderr=True)

    def update(self, text: str) -> None:
        self.spinner.update(text=text)

    def start(self) -> None:
        self.live.start()

    def stop(self) -> None:
        self.live.stop()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def cli_lexicon(file, fmt: str | None):
    """The lexicon a command names, or the shipped default one, saying on stderr when the default
    is compiled (once)."""
    from .defaults import lexicon_or_default

    return lexicon_or_default(file, fmt, announce=lambda message: print(f"{PROG}: {message}", file=sys.stderr))


def lone_path_error(text: str, wanted: str) -> UsageError:
    """The error for a lone argument that names a path where `wanted` (e.g. "a BOARD") must follow
    a lexicon: it says whether the path holds a lexicon, and if not, why not."""
    from .solver.lexicon import open_lexicon

    try:
        open_lexicon(text)
    except DawgError as err:
        return UsageError(f"{text} is not {wanted} and holds no lexicon ({err})")
    return UsageError(f"{text} is a lexicon: give {wanted} after it")
