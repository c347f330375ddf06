from steps.j1.extract.statutes import find_appendix_statutes, find_statutes

LAW = "《中华人民共和国刑法》"


def cites(text, **kw):
    found, issues = find_statutes(text, **kw)
    return [(s.law, s.article, s.sub_article, s.paragraph, s.item) for _, s in found], issues


def test_list_with_paragraphs():
    got, issues = cites("依照《中华人民共和国刑法》第二百六十六条、第二十三条、第六十七条第三款之规定")
    assert got == [(LAW, 266, None, None, None), (LAW, 23, None, None, None), (LAW, 67, None, 3, None)]
    assert issues == []


def test_paragraph_and_item_without_their_own_article_belong_to_the_last_one():
    got, _ = cites("依照《刑法》第三百八十三条第一款第（一）项、第三款、第五十二、五十三条")
    assert got == [
        (LAW, 383, None, 1, 1),
        (LAW, 383, None, 3, None),
        (LAW, 52, None, None, None),
        (LAW, 53, None, None, None),
    ]


def test_sub_article_is_kept_apart():
    got, _ = cites("依照《中华人民共和国刑法》第一百三十三条之一、第六十七条第三款")
    assert got[0] == (LAW, 133, 1, None, None)


def test_ranges_are_expanded():
    got, _ = cites("刑法第十条至第十二条")
    assert [a for _, a, *_ in got] == [10, 11, 12]


def test_several_paragraphs_and_items():
    got, _ = cites(
        "《中华人民共和国民事诉讼法（2013年）》第六十四条第一款、第二、三款，第一百一十九条第（一）、（二）项"
    )
    law = "《中华人民共和国民事诉讼法》"
    assert got == [
        (law, 64, None, 1, None),
        (law, 64, None, 2, None),
        (law, 64, None, 3, None),
        (law, 119, None, None, 1),
        (law, 119, None, None, 2),
    ]


def test_drafting_slips():
    got, _ = cites(
        "依照《刑法》三百零七条之一、第二十五条一款，第二百四十五条（非法侵入住宅罪），第六十七条第三款（坦白）"
    )
    assert got == [
        (LAW, 307, 1, None, None),
        (LAW, 25, None, 1, None),
        (LAW, 245, None, None, None),
        (LAW, 67, None, 3, None),
    ]
    got, _ = cites("依照《中华人民共和国民事诉讼法》第三十四条第、第第三十六条")
    assert [a for _, a, *_ in got] == [34, 36]


def test_several_laws_and_interpretations():
    got, _ = cites(
        "依照《中华人民共和国刑法》第二百六十四条，《最高人民法院、最高人民检察院关于办理盗窃刑事案件适用法律若干问题的解释》"
        "第一条，最高人民法院关于适用《中华人民共和国婚姻法》若干问题的解释（二）第二十四条"
    )
    assert [(law, a) for law, a, *_ in got] == [
        (LAW, 264),
        ("《最高人民法院、最高人民检察院关于办理盗窃刑事案件适用法律若干问题的解释》", 1),
        ("《最高人民法院关于适用〈中华人民共和国婚姻法〉若干问题的解释（二）》", 24),
    ]


def test_same_law_and_quoted_continuation():
    got, _ = cites(
        "《中华人民共和国合同法》第六十条第一款规定：“当事人应当按照约定全面履行自己的义务。”第一百零七条规定：“…”"
    )
    assert [a for _, a, *_ in got] == [60, 107]
    got, _ = cites("依照《中华人民共和国合同法》第六十条，该法第一百零七条")
    assert [a for _, a, *_ in got] == [60, 107]


def test_references_inside_a_quoted_provision_are_not_citations():
    got, _ = cites("该规定第九条规定：“具备合同法第二百一十条关于自然人之间借款合同的生效要件”")
    assert got == []


def test_a_contract_article_is_not_a_statute():
    got, _ = cites("双方签订的《股权转让协议书》第十一条约定了管辖法院")
    assert got == []


def test_basis_marks_the_applied_provisions():
    found, _ = find_statutes("《刑法》第二十条规定正当防卫。依照《刑法》第二百三十四条之规定，判决如下")
    assert [(s.article, s.basis) for _, s in found] == [(20, False), (234, True)]


def test_lost_inner_title_is_completed_and_flagged():
    found, _ = find_statutes("依据《最高人民法院关于适用的解释》第九十条之规定", empty_inner="民事诉讼法")
    ((_, statute),) = found
    assert statute.law == "《最高人民法院关于适用〈中华人民共和国民事诉讼法〉的解释》"
    assert statute.inferred


def test_appendix_headings_under_the_last_title():
    appendix = (
        "附：相关法律条文 《中华人民共和国刑法》 第二百六十六条诈骗公私财物…本法另有规定的，依照规定。 "
        "第六十七条第三款犯罪嫌疑人虽不具有前两款规定的自首情节… "
        "《最高人民法院关于审理毒品犯罪案件适用法律若干问题的解释》 第十二条…应当依照刑法第三百五十四条的规定… "
        "1、《中华人民共和国刑法》第七十二条第一款、第三款 对于被判处拘役…"
    )
    got = [(s.law, s.article, s.paragraph) for _, s in find_appendix_statutes(appendix)]
    assert got == [
        (LAW, 266, None),
        (LAW, 67, 3),
        ("《最高人民法院关于审理毒品犯罪案件适用法律若干问题的解释》", 12, None),
        (LAW, 72, 1),
        (LAW, 72, 3),
    ]


def test_glosses_tags_and_dropped_units():
    got, _ = cites(
        "依照《中华人民共和国刑法》第二百三十六条［强奸罪］、第六十七条三款［如实供述自己的罪行］、第二十三条［犯罪未遂］"
    )
    assert [(a, p) for _, a, _, p, _ in got] == [(236, None), (67, 3), (23, None)]
    got, _ = cites("依照《中华人民共和国刑法》第一百三十三条之一危险驾驶罪、第六十七条坦白、第四十二条拘役的期限的规定")
    assert [(a, sub) for _, a, sub, _, _ in got] == [(133, 1), (67, None), (42, None)]
    got, _ = cites("依照《中华人民共和国刑法》第二百六十四条、第六十七第三款、第六十四条之规定")
    assert [(a, p) for _, a, _, p, _ in got] == [(264, None), (67, 3), (64, None)]
    got, _ = cites(
        "《最高人民法院关于审理民间借贷案件适用法律若干问题的规定》（法释〔2020〕17号）第二十八条、第三十一条"
    )
    assert [a for _, a, *_ in got] == [28, 31]
    got, _ = cites("依照《中华人民共和国民事诉讼法》第一百一十九条；第一百五十四条第一款第三项")
    assert [(a, p, i) for _, a, _, p, i in got] == [(119, None, None), (154, 1, 3)]


def test_quoted_articles_in_a_row():
    got, _ = cites("及《中华人民共和国劳动合同法》第二十九条“用人单位与劳动者应当…。”、第三十条“用人单位应当…”")
    assert [a for _, a, *_ in got] == [29, 30]
