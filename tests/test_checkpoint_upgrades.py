"""Checkpoints outlive upgrades: a checkpoint names its lexicon by what it holds (`Lexicon.identity`), and
a format-1 checkpoint, which named it by the compiled arrays of the program that wrote it, resumes where
its run can vouch for the words (a proof's plan fingerprint) and is otherwise refused saying why. Every
checkpoint committed in benchmarks/results/ resumes on a fresh build and gives its recorded answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boggle_dawg.solver.board import parse_size
from boggle_dawg.solver.cluster.checkpoint import Checkpoint, read_checkpoint, record_line
from boggle_dawg.solver.cluster.plan_run import with_rules
from boggle_dawg.solver.cluster.prove_job import ProvePlan, run_prove_task
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.rules import Rules

from support import REPO, assert_clean_error, run_cli

COMMITTED = sorted((REPO / "benchmarks" / "results").glob("*.ckpt"))
WORDS = ["ate", "eat", "rate", "seat", "star", "tars", "tea", "teas", "tsar"]


def _as_format_1(path: Path, header: dict, records: dict) -> None:
    """A checkpoint as version 1 wrote it: its header naming the lexicon by a digest of arrays."""
    header = {**header, "lexicon": "324a2523" + "0" * 56}
    head = json.dumps({"format": "dawg-solve checkpoint", "version": 1, "header": header}).encode() + b"\n"
    path.write_bytes(head + b"".join(record_line(task, record) for task, record in records.items()))


def test_the_identity_is_the_words_not_the_format(make_lexicon):
    path = make_lexicon(WORDS)
    identities = {open_lexicon(path, fmt).identity for fmt in ("trie", "dawg", "adtdawg")}
    assert len(identities) == 1
    assert open_lexicon(make_lexicon(WORDS[:-1])).identity not in identities
    assert open_lexicon(make_lexicon(WORDS, "abcdefghijklmnopqrstuvwxy")).identity not in identities  # letters too


@pytest.mark.slow
def test_a_format_1_proof_checkpoint_resumes_when_its_plan_is_this_lexicons(make_lexicon, tmp_path):
    lex = open_lexicon(make_lexicon(WORDS, "aerst"))
    plan = ProvePlan(lex, (2, 2), 4)
    records = {task: run_prove_task(spec, lex) for task, spec in list(plan.job().tasks)[:2]}
    checkpoint = tmp_path / "old.ckpt"
    _as_format_1(checkpoint, plan.header(), records)
    args = ("boggle_dawg.dawg_solve", "prove", str(lex.path), "--size", "2x2", "--min-score", "4",
            "--checkpoint", str(checkpoint), "--resume", "--json", "-q")
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert set(records) <= set(read_checkpoint(checkpoint).records)  # kept, and the run went on from them
    other = open_lexicon(make_lexicon(WORDS[1:], "aerst"))  # other words: its plan differs, nothing vouches
    _as_format_1(checkpoint, ProvePlan(other, (2, 2), 4).header(), {})
    assert_clean_error(run_cli(*args), "earlier version", "start a new checkpoint")


# The answers of the complete proofs committed (benchmarks/results/prove.md, docs/proofs.md): the published 3x4
# optimum of ENABLE2K, perslatesind, in canonical form, and the same board as the `big` optimum of ENABLE2K and TWL06.
ANSWERS = {("3x4", "standard", 1651): [{"board": "dnisetalsrep", "score": 1651}],
           ("3x4", "standard", 1668): [{"board": "dnisetalsrep", "score": 1668}],  # TWL06
           ("3x4", "standard", 1718): [{"board": "dnisetalsrep", "score": 1718}],  # NASPA2023
           ("3x4", "standard", 1701): [{"board": "dnisetalsrep", "score": 1701}],  # OSPD5
           ("3x4", "standard", 1959): [{"board": "bindlatesers", "score": 1959}],  # YAWL
           ("3x4", "standard", 2073): [{"board": "drpseiaestng", "score": 2073}],  # SOWPODS
           ("3x4", "big", 1574): [{"board": "dnisetalsrep", "score": 1574}],
           ("3x4", "big", 1590): [{"board": "dnisetalsrep", "score": 1590}]}


@pytest.mark.slow
@pytest.mark.parametrize("committed", COMMITTED, ids=[p.name for p in COMMITTED])
def test_every_committed_checkpoint_resumes_on_a_fresh_build_with_its_answer(committed, built, tmp_path):
    """Each checkpoint committed in benchmarks/results/ is accepted by a run of its options on a fresh build of
    its list; a complete one gives its recorded answer without proving anything again (a proof still under
    way, spanning sessions, or a 4x4 sample that projects a whole proof, is only opened: the rest takes hours)."""
    copy = tmp_path / committed.name
    copy.write_bytes(committed.read_bytes())
    contents = read_checkpoint(copy)
    header = contents.header
    assert header["kind"] == "prove" and header["shape"] in ("3x4", "4x4")  # 4x4: samples for projections
    rules = Rules.from_dict(with_rules(header)["rules"], str(committed))
    lex = open_lexicon(built(committed.stem.split("-")[2]))  # prove-SHAPE-LIST[-...].ckpt
    share = header.get("share")  # a sample: the first records of its seed's order
    sample = {"seed": share["seed"], "limit": len(contents.records)} if share else {}
    plan = ProvePlan(lex, parse_size(header["shape"]), header["min_score"], header["split"], rules=rules, **sample)
    kept = copy.read_bytes()
    with Checkpoint.open(copy, plan.header(), True, plan.check_record, plan.upgrade_header) as opened:
        assert opened.records == contents.records
    if len(contents.records) < plan.total:
        return
    options = ["--sample", str(sample["limit"]), "--seed", str(sample["seed"])] if share else []
    proc = run_cli("boggle_dawg.dawg_solve", "prove", str(lex.path), "--size", header["shape"],
                   "--min-score", str(header["min_score"]), "--classes", header["split"], "--rules", rules.name,
                   *options, "--checkpoint", str(copy), "--resume", "--json", "-q", timeout=300)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["classes"] == len(contents.records) and answer["rules"] == rules.as_dict()
    if share:  # its projection, from the records alone
        cpu = [record["cpu_seconds"] for record in contents.records.values()]
        found = sorted((board, score) for record in contents.records.values() for board, score in record["boards"])
        assert answer["projection"]["sampled"] == len(cpu)
        assert sorted((shown["board"], shown["score"]) for shown in answer["boards"]) == found
        assert answer["projection"]["projected_cpu_seconds"] == round(sum(cpu) / len(cpu) * plan.plan.canonical_count())
    else:
        assert answer["boards"] == ANSWERS[header["shape"], rules.name, header["min_score"]]
    assert copy.read_bytes() == kept  # nothing left to run: nothing appended
