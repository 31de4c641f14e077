"""Search snippets: words around the query's terms, the terms marked as keyword search matched
them, the passage's markup left out and its text escaped."""

from __future__ import annotations

from gezel_knowledge.browse._snippets import marked_snippet, plain_text


def test_terms_are_marked_ignoring_case_and_diacritics_on_whole_words() -> None:
    snippet = marked_snippet("Le Café de Flore; CAFÉ noir; cafeteria.", "cafe")
    assert snippet == "Le <mark>Café</mark> de Flore; <mark>CAFÉ</mark> noir; cafeteria."
    assert marked_snippet("A naïve reader.", "NAIVE") == "A <mark>naïve</mark> reader."


def test_markup_is_left_out_and_headings_are_set_off() -> None:
    text = (
        "# Vectors\n\nEach passage is *stored* in `topic_documents`.\n\n```bash\nrun --this\n```"
        "\n\n> quoted, a > b\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n[a link](x.md) ![pic](p.png)\n"
    )
    assert plain_text(text) == (
        "Vectors · Each passage is stored in topic_documents. run --this quoted, a > b a b 1 2 "
        "a link pic"
    )
    assert "bash" not in marked_snippet(text, "passage")


def test_the_window_opens_near_the_first_term_and_text_is_escaped() -> None:
    text = "filler " * 80 + "the <b>needle</b> & more " + "tail " * 80
    snippet = marked_snippet(text, "needle", 120)
    assert snippet.startswith("… ")
    assert snippet.endswith(" …")
    assert "&lt;b&gt;<mark>needle</mark>&lt;/b&gt; &amp; more" in snippet
    assert len(snippet) < 220


def test_a_cjk_question_marks_its_pairs_inside_a_run() -> None:
    # 如何注册路由拦截器: its pairs 注册, 路由 and 拦截 (and 截器, covered by 拦截 first) are
    # marked inside the passage's run, as keyword search matched them; 如何 is not there.
    assert marked_snippet("在项目中注册路由拦截器，即可校验。", "如何注册路由拦截器") == (
        "在项目中<mark>注册</mark><mark>路由</mark><mark>拦截</mark>器，即可校验。"
    )
