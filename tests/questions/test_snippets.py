"""Search snippets cut in Python (``questions.snippets``): plain functions, no database."""

import pytest

from questions import snippets

S, E = "[", "]"


def cut(text: str, *words: str, tokens: int = 28) -> str | None:
    return snippets.cut(text, snippets.query(words), start=S, stop=E, tokens=tokens)


def test_every_form_of_a_query_word_is_marked_by_its_stem():
    out = cut("Caches grow, the cache is cached, and a KV-cache spills.", "cache", "kv")
    assert out == "[Caches] grow, the [cache] is [cached], and a [KV]-[cache] spills"


@pytest.mark.parametrize(
    "text, word, marked",
    [
        ("The capabilities of flies.", "capability", "capabilities"),
        ("To fly again.", "fly", "fly"),  # "fly" stems to "fli": not a prefix of the word
        ("Three flies.", "fly", "flies"),
        ("We try it.", "tries", "try"),
        ("Any batch will do.", "any", "Any"),
        ("The process is dying slowly.", "dying", "dying"),  # "dying" stems to "die"
        ("Clear skies tonight.", "skies", "skies"),  # an exception: "skies" stems to "sky"
        ("Lying still.", "lie", "Lying"),  # an exception: "lying" stems to "lie"
        ("A dry run.", "dried", "dry"),
    ],
)
def test_words_whose_stem_does_not_start_like_them_are_still_marked(text, word, marked):
    out = cut(text, word)
    assert out is not None and f"[{marked}]" in out


def test_an_underscore_separates_words_as_the_engines_parse_them():
    assert cut("Use a kv_cache here.", "kv") == "Use a [kv]_cache here"
    assert cut("Set batch_size to 8.", "batch", "size") == "Set [batch]_[size] to 8"
    assert cut("Set batch_size to 8.", "batch_size") == "Set [batch]_[size] to 8"


def test_no_wanted_word_gives_none_so_the_caller_tries_other_text():
    assert cut("Nothing about memory here.", "cache") is None
    assert cut("", "cache") is None
    assert cut("text", "!!!") is None  # a query of no words wants nothing


def test_a_word_deep_in_a_long_text_is_quoted_with_a_few_words_before_it():
    text = "Filler words that say nothing. " * 400 + "The wombatine estimate is 7 ms. " + "x " * 50
    out = cut(text, "wombatine", tokens=8)
    assert out == "…say nothing. The [wombatine] estimate is 7 ms …"  # 3 words lead in


def test_a_word_a_hundred_thousand_characters_in_is_still_found():
    text = "filler " * 20_000 + "the wombatine"
    assert len(text) > 100_000
    assert cut(text, "wombatine", tokens=8) == "…filler filler the [wombatine]"


def test_the_stretch_showing_the_most_distinct_words_wins_over_the_first_match():
    text = "cache " + "filler " * 60 + "the kv cache itself " + "filler " * 60
    out = cut(text, "kv", "cache", tokens=10)
    assert out is not None and "[kv] [cache]" in out and out.startswith("…")


def test_a_stretch_is_scored_on_the_words_it_shows_not_on_those_just_past_its_end():
    """A "cache" with "kv" 26 words later is one word in a 28-word stretch (4 words lead
    in): the later stretch holding both words side by side must win."""
    text = "word " * 100 + "cache " + "fill " * 25 + "kv " + "word " * 100 + "the kv cache here"
    out = cut(text, "kv", "cache")
    assert out is not None and "[kv] [cache]" in out


def test_a_stretch_with_every_word_after_many_matches_of_one_word_is_found():
    text = "cache " * 100 + "filler " * 40 + "the kv cache here"
    out = cut(text, "kv", "cache")
    assert out is not None and "[kv] [cache]" in out


def test_a_stretch_at_the_start_has_no_leading_ellipsis_and_one_that_stops_early_has_a_trailing_one():
    out = cut("KV cache sizing comes first, then everything else follows here.", "kv", tokens=4)
    assert out == "[KV] cache sizing comes …"


def test_a_very_short_stretch_still_shows_the_matched_word():
    out = cut("ab cd ef gh ij kl cache", "cache", tokens=3)
    assert out is not None and "[cache]" in out


def test_a_long_unbroken_token_is_quoted_cut_not_whole():
    out = cut("cache " + "x" * 200_000 + " end", "cache")
    assert out is not None and out.startswith("[cache] ") and len(out) < 200
    assert len(snippets.opening("y" * 200_000)) < 200


def test_the_snippet_prefers_public_text_then_guarded_text_only_when_given_then_the_opening():
    q = snippets.query(["zymurgic"])

    def snip(public: str, guarded: str | None) -> str:
        return snippets.snippet(public, guarded, q, start=S, stop=E, tokens=5)

    assert snip("A zymurgic summary.", "zymurgic answer") == "A [zymurgic] summary"
    assert snip("A plain summary of the question.", "The zymurgic answer.") == (
        "The [zymurgic] answer"
    )
    # a viewer who may not read the guarded text is never given it: only the opening
    assert snip("A plain summary of the question here.", None) == "A plain summary of the …"


def test_the_opening_of_a_short_text_is_the_whole_text():
    assert snippets.opening("Short text.", tokens=5) == "Short text"
    assert snippets.opening("", tokens=5) == ""
    assert snippets.opening("---", tokens=5) == "---"


def test_a_text_whose_lower_case_changes_length_is_still_marked_in_place():
    # "İ" lower-cases to two code points: positions in the lowered text would drift
    assert cut("İstanbul has a KV cache.", "cache") == "İstanbul has a KV [cache]"
    assert cut("An İİİ KV cache.", "kv", "cache") == "An İİİ [KV] [cache]"


def test_each_thread_stems_with_its_own_stemmer():
    """PyStemmer's stemmer objects are not thread-safe, and a threaded server stems from
    many threads at once: each thread gets its own, and they agree."""
    import threading

    seen: dict[str, object] = {}

    kept: dict[str, bool] = {}

    def work(name: str) -> None:
        seen[name] = snippets._stemmer()
        kept[name] = snippets._stemmer() is seen[name] and snippets.stem("flies") == "fli"

    threads = [threading.Thread(target=work, args=(f"t{i}",)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stemmers = [*seen.values(), snippets._stemmer()]
    assert len(stemmers) == 4 and len({id(s) for s in stemmers}) == 4
    assert kept == {"t0": True, "t1": True, "t2": True}  # one per thread, kept, agreeing


def test_a_stretch_is_quoted_without_markdown_links_emphasis_lists_or_directives():
    """The index holds what authors wrote: a snippet quoted "[constrained decoding](/concepts
    …", "*worse*" and "- No KV cache" (the browser walkthrough of 2026-12-07). A link keeps
    its text and loses its address, whose words no longer take quoted words' places."""
    text = (
        "Some words before it. With [constrained decoding](/concepts/constrained-decoding/) "
        "the p50 ITL is *worse* than **without** speculation, as an interviewer probes:\n"
        "- No KV cache here\n## Heading {{calc speculative_decoding gamma=4 -> speedup}} "
        "<!-- quoted --> `code` and kv_cache and 4*8 stay."
    )
    out = cut(text, "speculation", "decoding", tokens=40)
    assert " ".join(out.split()) == (
        "…before it. With constrained [decoding] the p50 ITL is worse than without "
        "[speculation], as an interviewer probes: No KV cache here Heading … code and kv_cache "
        "and 4*8 stay"
    )
    assert snippets.plain("[a](b) ![img](c.png) _em_") == "a img em"


def test_plain_keeps_figures_code_and_word_boundaries():
    """The second reading found "2**10" quoted as "210", "__init__" as "init" and two links
    or a directive glued to their neighbours."""
    assert snippets.plain("2**10 bytes, x**2, 4*8, a * b") == "2**10 bytes, x**2, 4*8, a * b"
    assert snippets.plain("__init__, __shared__, torch._C, kv_cache") == (
        "__init__, __shared__, torch._C, kv_cache"
    )
    assert snippets.plain("[KV](/a)[cache](/b) done") == "KV cache done"
    assert snippets.plain("x{{calc y}}z and a<!--c-->b") == "x…z and a b"
    assert snippets.plain("one\n3) two\n- three\n## four") == "one\ntwo\nthree\nfour"
    assert snippets.plain("x 3) y") == "x 3) y"  # not at a line start: a figure, kept


def test_a_word_only_in_a_link_address_or_directive_does_not_choose_the_stretch():
    filler = " ".join(f"w{i}" for i in range(60))
    text = f"Read [the model](/concepts/roofline/) first. {filler} The roofline bound."
    assert cut(text, "roofline").endswith("The [roofline] bound")
    text = f"The floor is {{{{calc roofline flops=1 bytes=2 -> ridge}}}}. {filler} roofline here"
    assert cut(text, "roofline").endswith("[roofline] here")
    assert cut("See [x](/concepts/roofline/) only", "roofline") is None  # then other text


def test_a_stretch_opening_on_a_figure_a_comment_or_a_long_address_keeps_its_words():
    assert cut("x y z w 3) then the kv cache", "cache") == "…3) then the kv [cache]"
    comment = "the cache <!-- a note\nthat spans lines -->and more"
    assert " ".join(cut(comment, "cache").split()) == "the [cache] and more"
    text = "cache " + " ".join(["twentyone"] * 3) + f" [x](/{'a' * 150}) twentytwo twentythree"
    assert cut(text, "cache", tokens=8).endswith("twentytwo twentythree")  # no half word


@pytest.mark.parametrize("junk", ["[", "*", "[](", "![", "](", "_", "{{", "<!--", "`"])
def test_a_long_run_of_syntax_between_words_is_quoted_without_it(junk):
    """benchmarks/snippet_scaling.py times these at 10 and 100 KB (linear; a quadratic
    pattern took 119 s on 100 KB of "["); here, that the quote is right."""
    text = "cache word " + junk * (5_000 // len(junk)) + " more cache"
    out = cut(text, "cache")
    assert out is not None and out.startswith(f"{S}cache{E} word")
    assert junk not in out.replace(f"{S}cache{E}", "cache")
    assert snippets.opening(text, tokens=3).startswith("cache word")


def test_a_stretch_cut_inside_a_link_or_a_directive_drops_its_tail():
    text = "word " * 40 + "the decoding](/concepts/x/) rest and {{calc roofline flops=1"
    out = cut(text, "decoding", tokens=8)
    assert out is not None and "](" not in out and "{{" not in out and "[decoding]" in out
    assert out.startswith("…")


def test_the_opening_is_quoted_without_markdown_too():
    text = "A **bold** start with [a link](/concepts/x/) and `code`, then " + "more " * 40
    out = snippets.opening(text, tokens=10)
    assert out == "A bold start with a link and code, then more …"
