"""Checkpoints (solver.cluster.checkpoint): durable appends, torn last records, refused mismatches."""

from __future__ import annotations

import json

import pytest

from boggle_dawg.solver.cluster.checkpoint import Checkpoint, header_line, read_checkpoint, record_line
from boggle_dawg.solver.errors import DawgError

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
