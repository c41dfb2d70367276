"""The content check: a clean constructed tree passes, and each rule fails on a file built
to break it. A final test runs the check over the shipped content."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from questions.content_check import check_content, final_heading, word_count

REF = {"title": "A paper", "publisher": "arXiv", "year": 2024, "url": "https://arxiv.org/abs/1"}
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def prose_for(tag: str, words: int = 300) -> str:
    """Unique sentences (each carries the tag and its index), so no two answers share one."""
    sentences = []
    i = 0
    while sum(len(s.split()) for s in sentences) < words:
        sentences.append(f"The {tag} point{i} covers " + " ".join(WORDS[: 8 + i % 4]) + ".")
        i += 1
    return " ".join(sentences)


def write(path: Path, meta: dict, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{content}\n")
    return path


def question_meta(n: int, access: str, **extra) -> dict:
    meta = {
        "number": n,
        "slug": f"q-{n}",
        "title": f"Question {n}?",
        "summary": "Summary.",
        "difficulty": "medium",
        "kind": "explain",
        "access": access,
        "concepts": ["c-one", "c-two"],
        "published": True,
        "references": [REF],
    }
    meta.update(extra)
    return meta


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A valid content folder: two concepts, one track of 24 questions (10/10/4), a guide."""
    for slug in ("c-one", "c-two"):
        write(
            tmp_path / "concepts" / f"{slug}.md",
            {
                "slug": slug,
                "title": slug,
                "category": "serving",
                "summary": "S.",
                "references": [REF],
            },
            prose_for(slug, 320),
        )
    track = tmp_path / "tracks" / "t"
    write(
        track / "_track.md", {"slug": "t", "title": "T", "category": "serving", "summary": "S."}, ""
    )
    for n in range(1, 25):
        access = "open" if n <= 10 else "account" if n <= 20 else "premium"
        write(
            track / f"{n:02d}-q-{n}.md",
            question_meta(n, access),
            f"Body {n}.\n\n<!-- answer -->\n\n{prose_for(f'q{n}')}",
        )
    guide = tmp_path / "guides" / "g"
    write(guide / "_guide.md", {"slug": "g", "title": "G", "summary": "S."}, "Intro.")
    write(
        guide / "01-s.md",
        {"order": 1, "slug": "s", "title": "S", "concepts": ["c-one"]},
        "## calculation: How long?\n\n{{calc response_time ttft_ms=200 itl_ms=20 output_tokens=500 -> total_s}} in all.",
    )
    (tmp_path / "diagrams").mkdir()
    (tmp_path / "diagrams" / "ring.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    return tmp_path


def rules(root: Path) -> set[str]:
    return {f.rule for f in check_content(root)}


def edit_answer(tree: Path, n: int, answer: str, **meta) -> None:
    path = next((tree / "tracks" / "t").glob(f"{n:02d}-*.md"))
    access = "open" if n <= 10 else "account" if n <= 20 else "premium"
    write(path, question_meta(n, access, **meta), f"Body.\n\n<!-- answer -->\n\n{answer}")


def test_the_constructed_tree_is_clean(tree):
    assert check_content(tree) == []


def test_unknown_concept_calculator_and_link_are_reported(tree):
    edit_answer(
        tree, 1, prose_for("x") + "\n\nSee [this](/concepts/nope/).", concepts=["c-one", "ghost"]
    )
    edit_answer(tree, 2, prose_for("y"), calculators=[{"calculator": "warp_drive", "inputs": {}}])
    messages = [str(f) for f in check_content(tree) if f.rule == "reference"]
    assert any("concept 'ghost'" in m for m in messages)
    assert any("warp_drive" in m for m in messages)
    assert any("/concepts/nope/" in m for m in messages)


def test_a_broken_directive_is_reported(tree):
    edit_answer(tree, 3, prose_for("z") + "\n\n{{calc decode_bound params_b=8}}")
    assert "directive" in rules(tree)


def test_a_short_answer_is_reported(tree):
    edit_answer(tree, 4, prose_for("short", 120))
    found = [f for f in check_content(tree) if f.rule == "length"]
    assert found and "at least 250" in found[0].message


def test_access_counts_and_gaps_are_reported(tree):
    path = next((tree / "tracks" / "t").glob("05-*.md"))
    write(path, question_meta(5, "premium"), f"B.\n\n<!-- answer -->\n\n{prose_for('p5')}")
    assert any("9 open" in f.message for f in check_content(tree) if f.rule == "access")
    path.unlink()
    assert any("without gaps" in f.message for f in check_content(tree) if f.rule == "access")


def test_boilerplate_shared_by_three_answers_is_reported(tree):
    shared = "Every serving stack eventually meets the same memory wall when the batch grows past the limit."
    for n in (6, 7):
        edit_answer(tree, n, prose_for(f"b{n}") + " " + shared)
    assert "boilerplate" not in rules(tree)  # two answers may share a sentence
    edit_answer(tree, 8, prose_for("b8") + " " + shared)
    assert "boilerplate" in rules(tree)


def test_more_than_a_quarter_ending_with_one_heading_is_reported(tree):
    for n in range(1, 7):  # 6 of 24 is exactly a quarter: allowed
        edit_answer(tree, n, prose_for(f"e{n}") + f"\n\n**Common wrong answer.** Case e{n}.")
    assert "ending" not in rules(tree)
    edit_answer(tree, 7, prose_for("e7") + "\n\n## Common wrong answer\n\nCase e7.")
    assert "ending" in rules(tree)


def test_missing_or_incomplete_references_are_reported(tree):
    edit_answer(tree, 9, prose_for("r"), references=[])
    edit_answer(tree, 10, prose_for("s"), references=[{"title": "T", "url": "https://x"}])
    messages = [f.message for f in check_content(tree) if f.rule == "sources"]
    assert any("1-4 references" in m for m in messages)
    assert any("missing publisher, year" in m for m in messages)


def test_diagram_needs_alt_text_caption_and_a_file_of_ours(tree):
    edit_answer(tree, 11, prose_for("d1") + '\n\n![](diagrams/ring.svg "Ring")')
    edit_answer(tree, 12, prose_for("d2") + "\n\n![A ring of GPUs](diagrams/ring.svg)")
    edit_answer(tree, 13, prose_for("d3") + '\n\n![A cat](https://example.com/cat.png "Cat")')
    messages = [f.message for f in check_content(tree) if f.rule == "diagram"]
    assert any("alternative text" in m for m in messages)
    assert any("caption" in m for m in messages)
    assert any("only our own diagrams/" in m for m in messages)


def test_typed_arithmetic_in_a_calculation_answer_is_reported(tree):
    typed = "So 8 GPUs × 80 GB = 640 GB in all."
    edit_answer(tree, 14, prose_for("t1") + "\n\n" + typed, kind="calculation")
    assert "typed-number" in rules(tree)
    edit_answer(tree, 14, prose_for("t1") + "\n\n" + typed + " <!-- quoted -->", kind="calculation")
    assert "typed-number" not in rules(tree)
    edit_answer(tree, 14, prose_for("t1") + "\n\n" + typed, kind="explain")  # only calculations
    assert "typed-number" not in rules(tree)


def test_typed_arithmetic_in_a_guide_calculation_item_is_reported(tree):
    write(
        tree / "guides" / "g" / "01-s.md",
        {"order": 1, "slug": "s", "title": "S", "concepts": ["c-one"]},
        "## calculation: How long?\n\n200 ms + 499 × 20 ms = 10.2 s.",
    )
    assert "typed-number" in rules(tree)


def test_concept_links_and_length(tree):
    write(
        tree / "concepts" / "lonely.md",
        {
            "slug": "lonely",
            "title": "L",
            "category": "serving",
            "summary": "S.",
            "references": [REF],
        },
        "Too short.",
    )
    edit_answer(tree, 15, prose_for("l"), concepts=["c-one"])
    found = {(Path(f.path).stem, f.rule) for f in check_content(tree)}
    assert ("lonely", "links") in found and ("lonely", "length") in found
    assert ("15-q-15", "links") in found


def test_helpers():
    assert final_heading("Text.\n\n## Where this breaks\n\nMore.") == "where this breaks"
    assert final_heading("1. **Step one** then.\n\nPlain ending.") is None
    assert word_count("Two words {{calc availability availability_pct=99.9}} `code here`") == 2


def test_command_exits_non_zero_on_findings(tree):
    call_command("check_content", "--root", str(tree))
    edit_answer(tree, 4, prose_for("short", 100))
    with pytest.raises(CommandError, match="finding"):
        call_command("check_content", "--root", str(tree), "--track", "t")


# -- the calculator boxes (issue 25, section 1) ----------------------------------------

SERVING = (
    "{{calc serving_estimate model=llama-3.1-8b preset=h100-sxm prompt_tokens=1000 "
    "output_tokens=200 concurrency=8%s -> itl_ms}}"
)
DECODE = "{{calc decode_bound params_b=8 bytes_per_param=1 preset=h100-sxm%s -> ms_per_token}}"


def findings_of(tree: Path, rule: str) -> list[str]:
    return [str(f) for f in check_content(tree) if f.rule == rule]


@pytest.mark.parametrize(
    ("box", "bad", "good", "rule", "says"),
    [
        (  # one ceiling derated, the other left at its default of 1
            DECODE,
            " bandwidth_efficiency=0.7",
            " bandwidth_efficiency=0.7 compute_efficiency=0.7",
            "efficiency",
            "bandwidth_efficiency=0.7 against compute_efficiency 1 (its default)",
        ),
        (  # two defaults that differ: serving_estimate's 0.8 and 0.5
            SERVING,
            "",
            " bandwidth_efficiency=0.7 compute_efficiency=0.7",
            "efficiency",
            "bandwidth_efficiency 0.8 (its default) against compute_efficiency 0.5",
        ),
        (  # a bf16 label on the H100's FP8 peak
            DECODE,
            " peak_tflops=1979 precision=bf16",
            " peak_tflops=1979 precision=fp8",
            "precision",
            "the NVIDIA H100 SXM's bf16 peak is 989 TFLOP/s (1979 is its fp8 peak: give "
            "precision=fp8)",
        ),
    ],
)
def test_a_misleading_directive_is_refused(tree, box, bad, good, rule, says):
    edit_answer(tree, 1, prose_for("x") + "\n\nThe figure: " + box % bad + ".")
    found = findings_of(tree, rule)
    assert len(found) == 1 and "01-q-1.md" in found[0] and "line 3" in found[0]
    assert says in found[0]
    edit_answer(tree, 1, prose_for("x") + "\n\nThe figure: " + box % good + ".")
    assert check_content(tree) == []


def test_one_efficiency_is_fine_where_the_other_ceiling_plays_no_part(tree):
    # No peak and no preset: decode_bound has no compute ceiling to derate.
    edit_answer(
        tree,
        3,
        prose_for("z") + "\n\n{{calc decode_bound params_b=8 bytes_per_param=2 "
        "bandwidth_tbs=3.35 bandwidth_efficiency=0.7 -> tokens_per_s_per_user}}",
    )
    assert check_content(tree) == []


def test_a_widget_derating_one_ceiling_alone_is_refused(tree):
    widget = {"calculator": "decode_bound", "preset": "h100-sxm"}
    inputs = {"params_b": 8, "bytes_per_param": 2, "bandwidth_efficiency": 0.7}
    edit_answer(tree, 4, prose_for("w"), calculators=[{**widget, "inputs": inputs}])
    found = findings_of(tree, "efficiency")
    assert len(found) == 1 and "calculator embed 'decode_bound'" in found[0]
    inputs["compute_efficiency"] = 0.7
    edit_answer(tree, 4, prose_for("w"), calculators=[{**widget, "inputs": inputs}])
    assert check_content(tree) == []


def test_a_widget_precision_label_that_disagrees_with_the_peak_is_refused(tree):
    inputs = {"params_b": 8, "bytes_per_param": 1, "peak_tflops": 1979, "precision": "bf16"}
    widget = {"calculator": "decode_bound", "preset": "h100-sxm", "inputs": inputs}
    edit_answer(tree, 6, prose_for("u"), calculators=[widget])
    assert len(findings_of(tree, "precision")) == 1
    inputs["precision"] = "fp8"
    edit_answer(tree, 6, prose_for("u"), calculators=[widget])
    assert check_content(tree) == []


# -- checked: YYYY-MM (issue 25, section 2) ---------------------------------------------


def test_a_page_naming_a_dated_product_needs_checked(tree):
    text = prose_for("g") + "\n\nOn an H100 with vLLM the scheduler admits by length."
    edit_answer(tree, 7, text)
    found = findings_of(tree, "checked")
    assert len(found) == 1 and "07-q-7.md" in found[0] and "names H100, vLLM" in found[0]
    edit_answer(tree, 7, text, checked="2026-12")
    assert check_content(tree) == []


def test_concepts_guides_and_sections_need_checked_too(tree):
    concept = tree / "concepts" / "c-one.md"
    meta = {"slug": "c-one", "title": "c-one", "category": "serving", "summary": "S."}
    write(concept, {**meta, "references": [REF]}, prose_for("c-one", 320) + " Kubernetes.")
    write(
        tree / "guides" / "g" / "_guide.md",
        {"slug": "g", "title": "G", "summary": "Serving on Trainium3."},
        "Intro.",
    )
    write(
        tree / "guides" / "g" / "02-t.md",
        {"order": 2, "slug": "t", "title": "T", "concepts": ["c-one"]},
        "## explain: What does torch.compile do?\n\nIt traces and fuses.",
    )
    found = {Path(f.path).name for f in check_content(tree) if f.rule == "checked"}
    assert found == {"c-one.md", "_guide.md", "02-t.md"}


@pytest.mark.parametrize(
    ("checked", "rule", "message"),
    [
        ("2026-10", "stale", "checked 2026-10 is before 2026-11"),
        ("2025-12", "stale", "before 2026-11"),
        ("2026-13", "checked", "not a real month"),
        ("2099-01", "checked", "in the future"),
        ("Dec 2026", "checked", "YYYY-MM"),
    ],
)
def test_a_stale_or_malformed_checked_is_reported(tree, checked, rule, message):
    edit_answer(tree, 8, prose_for("s"), checked=checked)
    found = [f for f in check_content(tree)]
    assert [f.rule for f in found] == [rule] and message in found[0].message


def test_checked_of_this_month_or_last_passes(tree):
    edit_answer(tree, 8, prose_for("s") + " Measured with Nsight.", checked="2026-11")
    edit_answer(tree, 9, prose_for("r"), checked="2026-12")
    assert check_content(tree) == []


def test_the_shipped_content_passes_the_check():
    findings = check_content(settings.CONTENT_DIR)
    assert findings == [], "\n".join(str(f) for f in findings[:40])


def test_every_shipped_question_concept_and_guide_file_is_checked_as_of_the_cut_off():
    """Issue 25's acceptance: not only the pages that name a product carry ``checked:``
    (the rule above), every question, concept and guide file does, at the cut-off or later."""
    import frontmatter

    from questions.content_check import CHECKED_STALE_BEFORE

    root = Path(settings.CONTENT_DIR)
    files = [
        *root.glob("tracks/*/[0-9]*.md"),
        *root.glob("concepts/*.md"),
        *root.glob("guides/*/*.md"),
    ]
    assert len(files) >= 300 + 96 + 4
    missing = [
        str(f.relative_to(root))
        for f in files
        if str(frontmatter.load(str(f)).metadata.get("checked") or "") < CHECKED_STALE_BEFORE
    ]
    assert missing == []
