"""The run journal: finished dialogues are taken as they are, unfinished ones replay their recorded calls while
the calls match, content changes and failures are never replayed, and a line cut off by a kill is ignored."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

from steps.simulate import EndReason
from steps.simulate.journal import Journal
from steps.simulate.runner import simulate
from tests.simulate.test_engine import COURT
from tests.simulate.toys import Script, court

LINES = {
    "judge": ["对被告人说：姓名？", "对公诉机关说：起诉书？", "<结束庭审>"],
    "defendant": ["甲。"],
    "procurator": ["起诉书……"],
}


def run_all(instances, speak, journal):
    return asyncio.run(simulate(instances, lambda i: court(), speak, journal, max_concurrent=4))


def test_finished_dialogues_are_taken_from_the_journal(tmp_path):
    path = tmp_path / "run.jsonl"
    first = Script(LINES)
    journal = Journal(path)
    (d1,) = run_all([COURT], first, journal)
    journal.close()
    again = Script({})  # would say "……" to everything: it must not be asked
    journal = Journal(path)
    (d2,) = run_all([COURT], again, journal)
    journal.close()
    assert again.calls == [] and d2 == d1 and d1.ended_by is EndReason.MARKER


def test_an_unfinished_dialogue_replays_its_calls_then_continues_live(tmp_path):
    path = tmp_path / "run.jsonl"
    journal = Journal(path)
    run_all([COURT], Script(LINES), journal)
    journal.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    calls = [line for line in lines if json.loads(line)["type"] == "call"]
    path.write_text("\n".join(calls[:3]) + '\n{"type": "call", "instance_id": "c/1", "ins', encoding="utf-8")  # cut
    rest = Script({"judge": ["<结束庭审>"], "procurator": ["起诉书……"]})
    journal = Journal(path)
    (d,) = run_all([COURT], rest, journal)
    journal.close()
    assert len(rest.calls) == 2 and d.ended_by is EndReason.MARKER  # 3 replayed, the other 2 asked
    assert [t.text for t in d.utterances()][:3] == ["对被告人说：姓名？", "甲。", "对公诉机关说：起诉书？"]


def test_a_changed_instance_or_a_failed_dialogue_is_never_replayed(tmp_path):
    path = tmp_path / "run.jsonl"
    journal = Journal(path)
    run_all([COURT], Script(LINES), journal)
    failing = replace(COURT, instance_id="c/2")
    run_all([failing], Script(LINES, fail_at={("defendant", 0)}), journal)
    journal.close()
    changed = replace(COURT, profiles={**COURT.profiles, "judge": {"findings": "被告人甲盗窃手机两部"}})
    fresh = Script(LINES)
    journal = Journal(path)
    assert journal.finished(changed) is None and journal.finished(failing) is None
    (d,) = run_all([changed], fresh, journal)
    journal.close()
    assert len(fresh.calls) == 5 and d.ended_by is EndReason.MARKER


def _records(path):
    """Every line of the journal as JSON; a glued or cut line fails the test here."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_line_cut_by_a_crash_is_dropped_before_appending_so_no_record_is_glued_or_lost(tmp_path):
    path = tmp_path / "run.jsonl"
    journal = Journal(path)
    run_all([COURT], Script(LINES), journal)
    journal.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    calls = [line for line in lines if json.loads(line)["type"] == "call"]
    cut = calls[3][: len(calls[3]) // 2]  # the fourth call's record, cut mid-record with no newline
    path.write_text("\n".join(calls[:3]) + "\n" + cut, encoding="utf-8")
    rest = Script({"judge": ["<结束庭审>"], "procurator": ["起诉书……"]})
    journal = Journal(path)
    (d,) = run_all([COURT], rest, journal)
    journal.close()
    records = _records(path)
    assert [json.dumps(r, ensure_ascii=False) for r in records[:3]] == [
        json.dumps(json.loads(line), ensure_ascii=False) for line in calls[:3]
    ]
    assert [r["type"] for r in records] == ["call"] * 5 + ["done"]  # 3 kept + 2 asked again, then the dialogue
    again = Script({})
    journal = Journal(path)
    (d2,) = run_all([COURT], again, journal)
    journal.close()
    assert again.calls == [] and d2 == d and len(_records(path)) == 6


def test_a_whole_last_record_without_its_newline_is_kept(tmp_path):
    path = tmp_path / "run.jsonl"
    journal = Journal(path)
    run_all([COURT], Script(LINES), journal)
    journal.close()
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n"), encoding="utf-8")  # killed between the record and its newline
    journal = Journal(path)
    assert journal.finished(COURT) is not None
    journal.close()
    assert path.read_text(encoding="utf-8") == text


def test_a_dialogue_that_went_on_past_a_failed_call_is_not_taken_as_done(tmp_path):
    """A supervisor check whose call failed leaves the reply unreviewed and the dialogue goes on; such a dialogue
    must be played again on a rerun, or the failed call's effect stays in the outputs for good (found by the
    fault soak in MILE)."""
    from steps.simulate.model import Turn, TurnKind

    path = tmp_path / "run.jsonl"
    journal = Journal(path)
    (done,) = run_all([COURT], Script(LINES), journal)
    unreviewed = replace(COURT, instance_id="c/3")
    check = Turn(
        instance_id="c/3",
        turn_index=len(done.turns),
        exchange=done.exchanges,
        speaker="supervisor",
        addressee=None,
        kind=TurnKind.CHECK,
        text="",
        failure="auth: refused",
    )
    journal.record_done(unreviewed, replace(done, instance_id="c/3", turns=[*done.turns, check]))
    journal.close()
    journal = Journal(path)
    assert journal.finished(COURT) is not None
    assert journal.finished(unreviewed) is None
    journal.close()
