"""Search snippets cut in Python (``questions.snippets``): plain functions, no database."""

from questions import snippets

S, E = "[", "]"


def cut(text: str, *words: str, tokens: int = 28) -> str | None:
    return snippets.cut(text, snippets.stems(words), start=S, stop=E, tokens=tokens)


def test_every_form_of_a_query_word_is_marked_by_its_stem():
    out = cut("Caches grow, the cache is cached, and a KV-cache spills.", "cache", "kv")
    assert out == "[Caches] grow, the [cache] is [cached], and a [KV]-[cache] spills"


def test_words_whose_stem_is_not_a_prefix_of_them_are_still_found():
    # Snowball rewrites suffixes: "capability" stems to "capabl", "flies" to "fli"
    assert cut("The capabilities of flies.", "capability", "fly") == (
        "The [capabilities] of [flies]"
    )


def test_no_wanted_word_gives_none_so_the_caller_tries_other_text():
    assert cut("Nothing about memory here.", "cache") is None
    assert cut("", "cache") is None
    assert snippets.cut("text", frozenset(), start=S, stop=E) is None


def test_a_word_deep_in_a_long_text_is_quoted_with_a_few_words_before_it():
    text = "Filler words that say nothing. " * 400 + "The wombatine estimate is 7 ms. " + "x " * 50
    out = cut(text, "wombatine", tokens=8)
    assert out == "…that say nothing. The [wombatine] estimate is 7 …"


def test_the_stretch_holding_the_most_distinct_words_wins_over_the_first_match():
    text = "cache " + "filler " * 60 + "the kv cache itself " + "filler " * 60
    out = cut(text, "kv", "cache", tokens=10)
    assert out is not None and "[kv] [cache]" in out and out.startswith("…")


def test_a_stretch_at_the_start_has_no_leading_ellipsis_and_one_that_stops_early_has_a_trailing_one():
    out = cut("KV cache sizing comes first, then everything else follows here.", "kv", tokens=4)
    assert out == "[KV] cache sizing comes …"


def test_the_snippet_prefers_public_text_then_guarded_text_only_when_given_then_the_opening():
    wanted = snippets.stems(["zymurgic"])

    def snip(public: str, guarded: str | None) -> str:
        return snippets.snippet(public, guarded, wanted, start=S, stop=E, tokens=5)

    assert snip("A zymurgic summary.", "zymurgic answer") == "A [zymurgic] summary"
    assert snip("A plain summary of the question.", "The zymurgic answer.") == (
        "The [zymurgic] answer"
    )
    # a viewer who may not read the guarded text is never given it: only the opening
    assert snip("A plain summary of the question here.", None) == "A plain summary of the …"


def test_the_opening_of_a_short_text_is_the_whole_text():
    assert snippets.opening("Short text.", tokens=5) == "Short text."
    assert snippets.opening("", tokens=5) == ""
