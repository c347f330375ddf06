"""Hand-written court transcripts for the procedure judge tests: a diligent judge and a careless one."""

from __future__ import annotations

from steps.j1.eval.metrics.trial import Exchange, group_exchanges

JUDGE, PLAINTIFF, DEFENDANT = "审判长", "原告代理律师", "被告代理律师"

CIVIL_JUDGMENT = (
    "本院认为，原告与被告之间的借款关系合法有效，被告未按约还款，应承担还款责任。依照《中华人民共和国民法典》"
    "第六百七十五条、第六百七十六条之规定，判决如下：一、被告于本判决生效之日起十日内偿还原告借款50000元；"
    "二、驳回原告的其他诉讼请求。<结束庭审>"
)

# one procedural action per judge turn, in the order of the civil procedure
CIVIL_ORACLE_STEPS = [
    ("现在开庭。对原告说：请核实你方当事人的身份信息。", PLAINTIFF, "已确认。"),
    ("对被告说：请核实你方当事人的身份信息。", DEFENDANT, "已确认。"),
    ("本案由审判员一人独任审理。", None, None),
    ("本案适用简易程序审理。", None, None),
    ("对原告说：你方是否申请回避？", PLAINTIFF, "不申请回避。"),
    ("对被告说：依法告知你方享有的诉讼权利和义务，听清楚了吗？", DEFENDANT, "听清楚了。"),
    ("对被告说：无正当理由拒不到庭将缺席判决，清楚吗？", DEFENDANT, "清楚。"),
    ("对原告说：请陈述你方的诉讼请求。", PLAINTIFF, "请求判令被告偿还借款50000元。"),
    ("对被告说：请针对原告的诉讼请求进行答辩。", DEFENDANT, "借款属实，但暂时无力偿还。"),
    ("对原告说：请举证，并由被告质证。", PLAINTIFF, "提交借条一份。"),
    ("对被告说：本庭向你发问，借款是哪天交付的？", DEFENDANT, "2024年1月。"),
    ("对原告说：本案的争议焦点是还款期限，请围绕争议焦点发表辩论意见。", PLAINTIFF, "被告早已逾期。"),
    ("对被告说：请作最后陈述。", DEFENDANT, "希望分期偿还。"),
    ("对原告说：你方是否同意调解？", PLAINTIFF, "拒绝调解。"),
    (CIVIL_JUDGMENT, None, None),
]

# talks for many turns but never runs the procedure, then judges
CIVIL_CARELESS_STEPS = [
    ("对原告说：你好。", PLAINTIFF, "您好。"),
    ("对被告说：你好。", DEFENDANT, "您好。"),
    ("对原告说：今天天气不错。", PLAINTIFF, "是的。"),
    ("对被告说：我们开始吧。", DEFENDANT, "好的。"),
    (CIVIL_JUDGMENT, None, None),
]


def exchanges(steps: list[tuple[str, str | None, str | None]]) -> list[Exchange]:
    rows = []
    for i, (judge, party, reply) in enumerate(steps, 1):
        rows.append((i, JUDGE, judge))
        if party:
            rows.append((i, party, reply))
    return group_exchanges(rows)


ACCUSED, DEFENCE, PROCURATOR = "被告人", "被告辩护人", "公诉机关"
CRIMINAL_JUDGMENT = (
    "本院认为，被告人张三以非法占有为目的，秘密窃取他人财物，数额较大，其行为已构成盗窃罪。依照《中华人民共和国刑法》"
    "第二百六十四条之规定，判决如下：被告人张三犯盗窃罪，判处有期徒刑一年，并处罚金人民币五千元。<结束庭审>"
)
CRIMINAL_ORACLE_STEPS = [
    ("现在开庭。对被告人说：请核实你的身份，报一下姓名和出生日期。", ACCUSED, "我叫张三，1990年1月1日出生。"),
    ("对被告人说：你以前是否受过刑事处罚，有无前科？", ACCUSED, "没有前科。"),
    ("本案依法适用普通程序，公开开庭审理。", None, None),
    ("对公诉机关说：请宣读起诉书，明确指控被告人的罪名。", PROCURATOR, "指控被告人张三犯盗窃罪。"),
    ("对被告人说：依法告知你享有的诉讼权利，包括辩护权，听清楚了吗？", ACCUSED, "听清楚了。"),
    ("对被告人说：你是否申请回避？", ACCUSED, "不申请。"),
    ("对被告人说：你是否认罪认罚？", ACCUSED, "认罪认罚。"),
    ("对被告人说：请陈述案发经过。", ACCUSED, "我拿了别人的手机。"),
    (CRIMINAL_JUDGMENT, None, None),
]
CRIMINAL_CARELESS_STEPS = [
    ("对被告人说：你好。", ACCUSED, "你好。"),
    ("对公诉机关说：你好。", PROCURATOR, "你好。"),
    ("对被告辩护人说：你好。", DEFENCE, "你好。"),
    (CRIMINAL_JUDGMENT, None, None),
]
