"""The likely-cause engine scored on the labelled corpus (cause_corpus.py, made by
make_corpus.py with the emulator and the demo server): what `mcptui inspect` says of each
reproduced failure, in each form a user brings it, and after a probe of a demo server in the
case's mode."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from cause_corpus import CASES, FORMS, Case, case_dir, mcp_server, score_form
from mcptui.model.causes import CAUSES, UNDETERMINED
from stack_cases import NOT_REPRODUCED, REPRODUCED

PRESENT = [
    (case, form)
    for case in CASES
    for form in FORMS
    if (case_dir(case) / f"{form}.{'jsonl' if form == 'recording' else 'json'}").exists()
]


def test_every_known_cause_has_a_case_in_every_form_the_api_gives() -> None:
    # The demo corpus, or the real server stacks (stack_cases.py); "cannot tell" is no cause.
    assert {case.cause for case in CASES} | REPRODUCED | set(NOT_REPRODUCED) | {
        UNDETERMINED
    } == set(CAUSES)
    for case in CASES:
        forms = {form for c, form in PRESENT if c is case}
        assert {"recording", "pasted"} <= forms, case.name
        refused = (case_dir(case) / "recording.jsonl").read_text().count(
            '"note"'
        ) and "response" not in forms
        # Only a request the API refused outright (a 4xx/5xx with no response) lacks one.
        assert "response" in forms or refused, case.name


@pytest.mark.parametrize(("case", "form"), PRESENT, ids=[f"{c.name}-{f}" for c, f in PRESENT])
def test_the_true_cause_is_listed_and_no_other_is_likely(case: Case, form: str) -> None:
    score = score_form(case, form)
    shown = [(c.cause.key, c.confidence) for c in score.causes]
    assert score.listed, f"{case.cause} not among {shown}"
    assert score.wrong == [], shown


@pytest.fixture(scope="module", params=[c for c in CASES if c.probe], ids=lambda c: c.name)
def probed_case(request: pytest.FixtureRequest) -> Iterator[tuple[Case, str]]:
    logging.getLogger("mcp").setLevel(logging.CRITICAL)  # the failures are the point
    with mcp_server(request.param) as origin:
        yield request.param, origin


def test_a_probe_confirms_the_true_cause_wherever_the_file_names_the_server(
    probed_case: tuple[Case, str],
) -> None:
    case, origin = probed_case
    probed = 0
    for form in FORMS:
        score = score_form(case, form, origin=origin)
        if not score.present or score.probed is None:
            continue
        probed += 1
        assert score.confirmed_after_probe, (
            form,
            [(c.cause.key, c.confidence) for c in score.causes],
        )
        assert score.wrong_after_probe == [], form
    assert probed >= 1  # the recording always names the server (its request)
