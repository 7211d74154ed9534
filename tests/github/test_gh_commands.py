"""The ``/code-guard dismiss`` command as read from one comment's markdown."""

from __future__ import annotations

import pytest

from code_guard.findings import DismissalKind
from code_guard.github.commands import Command, Rejected, parse_commands


def test_a_reply_command_and_an_id_command() -> None:
    body = (
        "Thanks.\n/code-guard dismiss false-positive  the value  is a constant \n"
        "  /code-guard dismiss 1A2B3C4D wont-fix legacy code\n"
    )
    assert parse_commands(body) == [
        Command(DismissalKind.FALSE_POSITIVE, "the value is a constant"),
        Command(DismissalKind.WONT_FIX, "legacy code", "1a2b3c4d"),
    ]


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("/code-guard", "unknown command ''"),
        ("/code-guard undo it", "unknown command 'undo'"),
        ("/code-guard dismiss", "the command names no kind"),
        ("/code-guard dismiss 1a2b3c4d", "the command names no kind"),
        ("/code-guard dismiss nope because", "unknown kind 'nope'"),
        ("/code-guard dismiss accepted-risk", "a reason is required"),
        ("/code-guard dismiss 1a2b3c4d accepted-risk   ", "a reason is required"),
        ("/code-guard dismiss wont-fix " + "x" * 501, "longer than 500 characters"),
    ],
)
def test_bad_input_is_one_line(line: str, why: str) -> None:
    [rejected] = parse_commands(line)
    assert isinstance(rejected, Rejected)
    assert why in rejected.why and "\n" not in rejected.why


def test_commands_in_code_suggestion_blocks_and_quotes_never_count() -> None:
    body = (
        "```suggestion\n/code-guard dismiss false-positive ok\n```\n"
        "~~~~\n/code-guard dismiss false-positive ok\n~~~\n/code-guard dismiss false-positive ok\n"
        "~~~~\n"
        "> /code-guard dismiss false-positive ok\n"
        "    /code-guard dismiss false-positive indented code\n"
        "text /code-guard dismiss false-positive mid-line\n"
    )
    assert [type(p) for p in parse_commands(body)] == [Rejected, Rejected, Rejected, Rejected]
    assert [p.why for p in parse_commands(body) if isinstance(p, Rejected)][-1] == (
        "the command is inside a quote"
    )


def test_an_unclosed_fence_hides_the_rest() -> None:
    assert parse_commands("```\n/code-guard dismiss false-positive ok") == [
        Rejected("the command is inside a code or suggestion block")
    ]
