"""Checkpoints (solver.cluster.checkpoint): durable appends, torn last records, refused mismatches, one run at
a time, write errors, records checked against their schema."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boggle_dawg.solver.cluster.checkpoint import Checkpoint, header_line, read_checkpoint, record_line
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.schema import fields, integer, list_of, pair, text

HEADER = {"kind": "search", "lexicon": "ab" * 32, "shape": "3x3", "seed": 7, "options": {"pool": None}}


def _write(path, records, header=HEADER):
    with Checkpoint.open(path, header, resume=False) as cp:
        for task, record in records:
            cp.append(task, record)


def test_a_checkpoint_holds_its_header_and_each_record_once(tmp_path):
    path = tmp_path / "run.ckpt"
    _write(path, [(0, {"top": [["abc", 5]]}), (3, {"top": []}), (0, {"top": [["zzz", 1]]})])
    lines = path.read_bytes().splitlines()
    assert len(lines) == 3  # the header, then tasks 0 and 3; the second record of task 0 is not written
    assert json.loads(lines[0])["header"] == HEADER
    contents = read_checkpoint(path)
    assert contents.header == HEADER and not contents.torn
    assert contents.records == {0: {"top": [["abc", 5]]}, 3: {"top": []}}


def test_resume_keeps_the_records_and_appends_after_them(tmp_path):
    path = tmp_path / "run.ckpt"
    _write(path, [(1, {"x": 1})])
    with Checkpoint.open(path, HEADER, resume=True) as cp:
        assert cp.records == {1: {"x": 1}}
        cp.append(2, {"x": 2})
        cp.append(1, {"x": 99})
    assert read_checkpoint(path).records == {1: {"x": 1}, 2: {"x": 2}}


@pytest.mark.parametrize("cut", [1, 5, -2])
def test_a_torn_last_record_is_ignored_and_cut_off_before_appending(tmp_path, cut):
    path = tmp_path / "run.ckpt"
    _write(path, [(0, {"x": 0}), (1, {"x": 1})])
    whole = path.read_bytes()
    last = record_line(1, {"x": 1})
    path.write_bytes(whole[:len(whole) - len(last)] + last[:cut if cut > 0 else len(last) + cut])
    contents = read_checkpoint(path)
    assert contents.torn and contents.records == {0: {"x": 0}}
    with Checkpoint.open(path, HEADER, resume=True) as cp:
        assert set(cp.records) == {0}
        cp.append(1, {"x": 1})
    assert path.read_bytes() == whole


def test_a_last_line_with_a_wrong_checksum_counts_as_torn(tmp_path):
    path = tmp_path / "run.ckpt"
    _write(path, [(0, {"x": 0})])
    path.write_bytes(path.read_bytes() + record_line(1, {"x": 1}).replace(b'"x":1', b'"x":7'))
    contents = read_checkpoint(path)
    assert contents.torn and contents.records == {0: {"x": 0}}


def test_a_damaged_line_before_the_last_is_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    _write(path, [(0, {"x": 0}), (1, {"x": 1}), (2, {"x": 2})])
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2][:10]
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(DawgError, match="line 3 is damaged"):
        read_checkpoint(path)


@pytest.mark.parametrize("field, value", [("lexicon", "cd" * 32), ("shape", "3x4"), ("seed", 8),
                                          ("options", {"pool": 4})])
def test_a_checkpoint_of_another_run_is_refused_in_one_line(tmp_path, field, value):
    path = tmp_path / "run.ckpt"
    _write(path, [(0, {"x": 0})])
    with pytest.raises(DawgError) as err:
        Checkpoint.open(path, {**HEADER, field: value}, resume=True)
    message = str(err.value)
    assert "\n" not in message and "different run" in message and field in message
    assert read_checkpoint(path).records == {0: {"x": 0}}  # left as it was


def test_an_existing_checkpoint_needs_resume(tmp_path):
    path = tmp_path / "run.ckpt"
    _write(path, [])
    with pytest.raises(DawgError, match="--resume"):
        Checkpoint.open(path, HEADER, resume=False)


@pytest.mark.parametrize("content", [b"", b'{"format": "dawg-solve chec'])
def test_an_empty_or_never_finished_file_starts_afresh(tmp_path, content):
    path = tmp_path / "run.ckpt"
    path.write_bytes(content)
    with Checkpoint.open(path, HEADER, resume=True) as cp:
        assert cp.records == {}
        cp.append(0, {"x": 0})
    assert path.read_bytes() == header_line(HEADER) + record_line(0, {"x": 0})


def test_other_files_and_versions_are_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    path.write_text("hello\n")
    with pytest.raises(DawgError, match="not a dawg-solve checkpoint"):
        Checkpoint.open(path, HEADER, resume=True)
    path.write_text(json.dumps({"format": "dawg-solve checkpoint", "version": 99, "header": {}}) + "\n")
    with pytest.raises(DawgError, match="version 99"):
        Checkpoint.open(path, HEADER, resume=True)


# --- one run at a time, and appends that leave the file whole ------------------------------------


def test_a_checkpoint_in_use_is_refused_in_one_line_naming_the_run(tmp_path):
    path = tmp_path / "run.ckpt"
    with Checkpoint.open(path, HEADER, resume=False) as cp:
        cp.append(0, {"x": 0})
        with pytest.raises(DawgError) as err:
            Checkpoint.open(path, HEADER, resume=True)
        message = str(err.value)
        assert "\n" not in message and str(path) in message and f"pid {os.getpid()}" in message
        cp.append(1, {"x": 1})
    assert read_checkpoint(path).records == {0: {"x": 0}, 1: {"x": 1}}  # the refused run touched nothing
    with Checkpoint.open(path, HEADER, resume=True) as cp:  # free again once the first run closed it
        assert set(cp.records) == {0, 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.ckpt"]  # no lock file left behind


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    script = ("import sys; from boggle_dawg.solver.cluster.checkpoint import Checkpoint\n"
              "from boggle_dawg.solver.errors import DawgError\n"
              "for resume in (True, False):\n"
              "    try: Checkpoint.open(sys.argv[1], {'kind': 'x'}, resume)\n"
              "    except DawgError as err: print(err)\n")
    proc = subprocess.run([sys.executable, "-c", script, str(fifo)], capture_output=True, text=True, timeout=20)
    assert proc.stdout.splitlines() == [f"{fifo}: not a regular file (a checkpoint must be one)"] * 2, proc.stderr


def test_resume_needs_a_checkpoint_to_be_there(tmp_path):
    path = tmp_path / "nothing.ckpt"
    with pytest.raises(DawgError, match=f"no checkpoint at {path} to resume"):
        Checkpoint.open(path, HEADER, resume=True)
    assert not path.exists()


@pytest.mark.parametrize("failure", ["disk full", "short write"])
def test_a_failed_append_is_one_line_and_cut_off(tmp_path, monkeypatch, failure):
    path = tmp_path / "run.ckpt"
    real_write = os.write

    def failing_write(fd, data):
        if failure == "disk full":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data[:len(data) // 2])

    with Checkpoint.open(path, HEADER, resume=False) as cp:
        cp.append(0, {"x": 0})
        monkeypatch.setattr(os, "write", failing_write)
        with pytest.raises(DawgError) as err:
            cp.append(1, {"x": 1})
        monkeypatch.undo()
    assert "\n" not in str(err.value) and str(path) in str(err.value)
    assert path.read_bytes() == header_line(HEADER) + record_line(0, {"x": 0})  # whole: resumable as it is


def test_a_file_size_limit_is_one_line_and_leaves_the_checkpoint_whole(tmp_path):
    """RLIMIT_FSIZE at a record's end: the next write fails (EFBIG); in a child, whose limit it is."""
    path = tmp_path / "run.ckpt"
    limit = len(header_line(HEADER)) + len(record_line(0, {"x": 0}))
    script = ("import resource, sys, json\n"
              "from boggle_dawg.solver.cluster.checkpoint import Checkpoint\n"
              "from boggle_dawg.solver.errors import DawgError\n"
              f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
              "with Checkpoint.open(sys.argv[1], json.loads(sys.argv[2]), False) as cp:\n"
              "    try:\n"
              "        for task in range(3): cp.append(task, {'x': task})\n"
              "    except DawgError as err: print(err)\n")
    proc = subprocess.run([sys.executable, "-c", script, str(path), json.dumps(HEADER)], capture_output=True,
                          text=True, timeout=20)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stdout.splitlines()) == 1 and "cannot append" in proc.stdout
    assert read_checkpoint(path).records == {0: {"x": 0}} and not read_checkpoint(path).torn


def test_a_header_that_cannot_be_written_is_one_line(tmp_path, monkeypatch):
    """A read-only file system: the temporary file cannot be renamed, nor removed."""
    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(os, "replace", read_only)
    monkeypatch.setattr(Path, "unlink", read_only)
    with pytest.raises(DawgError, match="Read-only file system") as err:
        Checkpoint.open(tmp_path / "run.ckpt", HEADER, resume=False)
    assert "\n" not in str(err.value)


# --- the record schema, checked when a run resumes -------------------------------------------------


def _check_x(task, record):
    fields(x=integer(0, 9), pairs=list_of(pair(text("[a-z]+", "letters"), integer(), "a pair"), most=3))(record, "record")


@pytest.mark.parametrize("record, fragment", [
    ({"pairs": []}, "field record.x: missing"),
    ({"x": "lots", "pairs": []}, "field record.x: expected an integer 0..9, got the string 'lots'"),
    ({"x": 1e999, "pairs": []}, "field record.x: expected an integer 0..9, got the number inf"),
    ({"x": "1e999", "pairs": []}, "field record.x: expected an integer 0..9, got the string '1e999'"),
    ({"x": True, "pairs": []}, "field record.x: expected an integer 0..9, got true"),
    ({"x": 1, "pairs": "x"}, "field record.pairs: expected a list of at most 3 items, got the string 'x'"),
    ({"x": 1, "pairs": [["abc"]]}, "field record.pairs[0]: expected a pair, got a list of 1 items"),
    ({"x": 1, "pairs": [["abc", "lots"]]}, "field record.pairs[0][1]: expected an integer"),
])
def test_a_record_of_the_wrong_schema_is_refused_naming_line_and_field(tmp_path, record, fragment):
    path = tmp_path / "run.ckpt"
    _write(path, [(0, {"x": 0, "pairs": []}), (1, record), (2, {"x": 2, "pairs": [["ab", 3]]})])
    with pytest.raises(DawgError) as err:
        Checkpoint.open(path, HEADER, resume=True, check_record=_check_x)
    assert str(err.value).startswith(f"{path}: line 3: ") and fragment in str(err.value), str(err.value)
    with Checkpoint.open(path, HEADER, resume=True) as cp:  # without a schema (the records are plain JSON)
        assert len(cp.records) == 3


@pytest.mark.parametrize("task", [[1], {"a": 1}, True, None, 1.5])
def test_a_task_id_of_the_wrong_type_is_a_damaged_line(tmp_path, task):
    path = tmp_path / "run.ckpt"
    _write(path, [(0, {"x": 0})])
    path.write_bytes(path.read_bytes() + record_line(task, {"x": 1}) + record_line(2, {"x": 2}))
    with pytest.raises(DawgError, match="line 3 is damaged"):
        read_checkpoint(path)


@pytest.mark.parametrize("where", ["record", "header"])
def test_a_deeply_nested_line_is_refused_not_a_recursion_error(tmp_path, where):
    path = tmp_path / "run.ckpt"
    deep = b"[" * 200_000 + b"]" * 200_000
    if where == "header":
        path.write_bytes(b'{"format":"dawg-solve checkpoint","version":1,"header":' + deep + b"}\n")
        fragment = "not a dawg-solve checkpoint"
    else:
        _write(path, [(0, {"x": 0})])
        path.write_bytes(path.read_bytes() + b'{"task":1,"record":{"x":' + deep + b'},"sha256":"0"}\n'
                         + record_line(2, {"x": 2}))
        fragment = "line 3 is damaged"
    with pytest.raises(DawgError, match=fragment):
        Checkpoint.open(path, HEADER, resume=True)


# --- symbolic links: one lock per checkpoint, never written through ----------------------------------


def test_a_lock_file_that_is_a_symbolic_link_is_refused_and_its_target_untouched(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "run.ckpt.lock").symlink_to(victim)
    with pytest.raises(DawgError, match="run.ckpt.lock: a symbolic link, never followed") as err:
        Checkpoint.open(tmp_path / "run.ckpt", HEADER, resume=False)
    assert "\n" not in str(err.value)
    assert victim.read_text() == "precious\n" and not (tmp_path / "run.ckpt").exists()


def test_a_checkpoint_named_through_a_symbolic_link_takes_the_one_lock_of_its_file(tmp_path):
    path = tmp_path / "run.ckpt"
    (tmp_path / "alias.ckpt").symlink_to(path)
    with Checkpoint.open(path, HEADER, resume=False) as cp:
        cp.append(0, {"x": 0})
        with pytest.raises(DawgError, match="in use by another run"):
            Checkpoint.open(tmp_path / "alias.ckpt", HEADER, resume=True)
    with Checkpoint.open(tmp_path / "alias.ckpt", HEADER, resume=True) as cp:  # through the link, once free
        cp.append(1, {"x": 1})
    assert (tmp_path / "alias.ckpt").is_symlink()  # the link stays a link; its file holds both records
    assert read_checkpoint(path).records == {0: {"x": 0}, 1: {"x": 1}}


# --- checkpoints of an earlier format version ---------------------------------------------------------


def _version_1(path, header, records):
    head = json.dumps({"format": "dawg-solve checkpoint", "version": 1, "header": header}).encode() + b"\n"
    path.write_bytes(head + b"".join(record_line(task, record) for task, record in records))


def test_a_format_1_header_is_resumed_where_the_run_vouches_for_its_lexicon(tmp_path):
    path = tmp_path / "run.ckpt"
    _version_1(path, {**HEADER, "lexicon": "old arrays"}, [(0, {"x": 0})])
    vouched = []

    def upgrade(stored, version):
        vouched.append(version)
        return {**stored, "lexicon": HEADER["lexicon"]}

    with Checkpoint.open(path, HEADER, resume=True, upgrade=upgrade) as cp:
        cp.append(1, {"x": 1})
    assert vouched == [1] and read_checkpoint(path).records == {0: {"x": 0}, 1: {"x": 1}}


def test_a_format_1_header_nothing_vouches_for_says_why_and_what_to_do(tmp_path):
    path = tmp_path / "run.ckpt"
    _version_1(path, {**HEADER, "lexicon": "old arrays"}, [(0, {"x": 0})])
    with pytest.raises(DawgError) as err:
        Checkpoint.open(path, HEADER, resume=True, upgrade=lambda stored, version: stored)
    message = str(err.value)
    assert "\n" not in message and "earlier version" in message and "start a new checkpoint" in message
    _version_1(path, {**HEADER, "lexicon": "old arrays", "seed": 8}, [])  # another run altogether
    with pytest.raises(DawgError, match="different run"):
        Checkpoint.open(path, HEADER, resume=True, upgrade=lambda stored, version: {**stored, "lexicon": HEADER["lexicon"]})


def test_an_unknown_format_version_is_refused_naming_the_versions_read(tmp_path):
    path = tmp_path / "run.ckpt"
    path.write_bytes(json.dumps({"format": "dawg-solve checkpoint", "version": 3, "header": HEADER}).encode() + b"\n")
    with pytest.raises(DawgError, match="checkpoint format version 3, this program reads 1, 2"):
        read_checkpoint(path)
