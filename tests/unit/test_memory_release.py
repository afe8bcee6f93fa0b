"""The release rule: withheld outside the reader's projects, masked spans for agents,
whole for a human who may read the node; never more than the rule allows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.memory.release import (
    WITHHELD,
    NodeView,
    Reader,
    Release,
    Span,
    StoredNode,
    mask,
    release,
)

PROJECTS = st.frozensets(st.sampled_from(["east", "west", "north", "south"]), max_size=4)


@st.composite
def marked_text(draw: st.DrawFn) -> tuple[str, tuple[Span, ...]]:
    """Text whose spans are made of 'X' and nothing else is: a masked span's content can
    be looked for in the output."""
    parts = draw(st.lists(st.tuples(st.booleans(), st.integers(1, 6)), max_size=8))
    text, spans, at = "", [], 0
    for secret, size in parts:
        if secret:
            spans.append(
                Span(
                    kind=draw(st.sampled_from(["email", "phone", "iban"])), start=at, end=at + size
                )
            )
            text += "X" * size
        else:
            text += "a" * size
        at += size
    return text, tuple(spans)


@settings(max_examples=300)
@given(marked_text())
def test_mask_removes_every_span_and_keeps_everything_else(
    marked: tuple[str, tuple[Span, ...]],
) -> None:
    text, spans = marked
    out = mask(text, spans)
    assert "X" not in out
    assert out.replace("[email]", "").replace("[phone]", "").replace("[iban]", "") == text.replace(
        "X", ""
    )


@settings(max_examples=300)
@given(
    node_projects=PROJECTS,
    reader_projects=PROJECTS,
    is_agent=st.booleans(),
    same_org=st.booleans(),
    marked=marked_text(),
)
def test_no_reader_ever_gets_more_than_the_rule_allows(
    node_projects: frozenset[str],
    reader_projects: frozenset[str],
    is_agent: bool,
    same_org: bool,
    marked: tuple[str, tuple[Span, ...]],
) -> None:
    text, spans = marked
    node = StoredNode(
        org_id="o1", ref="r", projects=tuple(sorted(node_projects)), text=text, spans=spans
    )
    reader = Reader(
        principal_id="p",
        org_id="o1" if same_org else "o2",
        is_agent=is_agent,
        projects=reader_projects,
    )
    view = release(node, reader)
    if not same_org or not node_projects <= reader_projects:
        assert view == WITHHELD
        assert view.ref is None and view.text is None and view.projects == ()
    elif is_agent and spans:
        assert view.release is Release.REDACTED and view.text is not None
        assert "X" not in view.text and view.ref == "r"
    else:
        assert view == NodeView(
            release=Release.WHOLE, ref="r", projects=node.projects, text=text, kind="note"
        )


def test_a_redacted_view_names_what_it_masked() -> None:
    text = "Call Dana at +1 555 0100 or dana@atlas.example."
    spans = (Span(kind="phone", start=13, end=24), Span(kind="email", start=28, end=46))
    node = StoredNode(org_id="o", ref="r", projects=("east",), text=text, spans=spans)
    agent = Reader(principal_id="a", org_id="o", is_agent=True, projects=frozenset({"east"}))
    view = release(node, agent)
    assert view.text == "Call Dana at [phone] or [email]."
    assert view.masked == ("email", "phone")
    assert node.text == text  # the stored node is untouched
