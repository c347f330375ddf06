"""The rules the scripted extraction answer copies section text with."""

from steps.j1.extract.copying import CROSS_EXAM, evidence, numbered, sentences, statements


def test_numbered_items_and_semicolon_lists():
    assert numbered("1.判令被告支付货款4万元；2.诉讼费由被告承担") == ["判令被告支付货款4万元", "诉讼费由被告承担"]
    assert numbered("（1）返还借款；（2）支付利息。") == ["返还借款", "支付利息"]
    assert numbered("解除合同；退还学费6399.33元") == ["解除合同", "退还学费6399.33元"]
    assert numbered("") == []


def test_sentences_keep_their_end_marks():
    assert sentences("被告辩称，货物有问题。另称已付款；\n无其他意见") == [
        "被告辩称，货物有问题。",
        "另称已付款；",
        "无其他意见",
    ]


def test_evidence_follows_who_offered_it_and_what_it_proves():
    text = (
        "原告为支持其诉请向本院提供以下证据：\n1、欠条一张，拟证明被告欠款16300元。\n2、身份证复印件。\n"
        "被告提交了收据、转账记录，证明已还款。\n以上事实，有当事人陈述及庭审笔录在卷佐证"
    )
    got = [(e["party"], e["item"], e["proves"]) for e in evidence(text, "court")]
    assert got == [
        ("plaintiff", "欠条一张", "被告欠款16300元"),
        ("plaintiff", "身份证复印件", None),
        ("defendant", "收据", None),
        ("defendant", "转账记录", None),
        ("court", "当事人陈述及庭审笔录", None),
    ]


def test_cross_examination_statements_name_the_side_and_party():
    text = "被告李乙对原告提交的证据真实性无异议。原告未到庭。被告王丙质证认为欠条系伪造。"
    got = [(s["side"], s["party"]) for s in statements(text, CROSS_EXAM, ["李乙", "王丙"])]
    assert got == [("defendant", "李乙"), ("defendant", "王丙")]
