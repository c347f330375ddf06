"""Law names: abbreviations, version tags and judicial interpretations mapped to one official full name.

Judgments cite the same law as 《中华人民共和国刑法》, 《刑法》, 刑法 or 《中华人民共和国刑法（2015年修正）》, and
interpretations with nested title marks (《最高人民法院关于适用〈中华人民共和国民事诉讼法〉的解释》) that some
corpora flatten or drop. `canonical_law` returns the official name in 《》 with inner titles in 〈〉, so two
citations of one law compare equal; the version a court names is not part of the identity of the law.
"""

from __future__ import annotations

import re

PRC = "中华人民共和国"

# National laws cited by a short name. A short name ending in 法 that is not in this table still gets the PRC
# prefix (see `canonical_law`); the table is for contractions and for bare mentions without title marks.
ABBREVIATIONS: dict[str, str] = {
    "刑法": "刑法",
    "刑诉法": "刑事诉讼法",
    "刑事诉讼法": "刑事诉讼法",
    "民诉法": "民事诉讼法",
    "民事诉讼法": "民事诉讼法",
    "行诉法": "行政诉讼法",
    "行政诉讼法": "行政诉讼法",
    "民法典": "民法典",
    "民法通则": "民法通则",
    "民法总则": "民法总则",
    "合同法": "合同法",
    "物权法": "物权法",
    "担保法": "担保法",
    "婚姻法": "婚姻法",
    "继承法": "继承法",
    "收养法": "收养法",
    "侵权责任法": "侵权责任法",
    "劳动法": "劳动法",
    "劳动合同法": "劳动合同法",
    "公司法": "公司法",
    "保险法": "保险法",
    "票据法": "票据法",
    "著作权法": "著作权法",
    "商标法": "商标法",
    "专利法": "专利法",
    "消法": "消费者权益保护法",
    "消费者权益保护法": "消费者权益保护法",
    "食品安全法": "食品安全法",
    "产品质量法": "产品质量法",
    "道交法": "道路交通安全法",
    "道路交通安全法": "道路交通安全法",
    "治安管理处罚法": "治安管理处罚法",
    "禁毒法": "禁毒法",
    "未成年人保护法": "未成年人保护法",
    "反不正当竞争法": "反不正当竞争法",
}

# Interpretations cited by a nickname; the value is the official name with the inner title in 〈〉.
INTERPRETATIONS: dict[str, str] = {
    "民诉法解释": "最高人民法院关于适用〈中华人民共和国民事诉讼法〉的解释",
    "民事诉讼法解释": "最高人民法院关于适用〈中华人民共和国民事诉讼法〉的解释",
    "刑诉法解释": "最高人民法院关于适用〈中华人民共和国刑事诉讼法〉的解释",
    "刑事诉讼法解释": "最高人民法院关于适用〈中华人民共和国刑事诉讼法〉的解释",
}

# The name ends like a statute, not like a contract or a by-law (《股权转让协议书》第十一条 is not a law).
LAW_SUFFIX = re.compile(
    r"(法|法典|条例|规定|解释|意见|批复|办法|决定|规则|细则|通则|总则|纪要|答复|通知|修正案)"
    r"(（[一二三四五六七八九十]+）)?$"
)
# a version tag the court adds after the name: （2013年）, （2015年修正）, (2018注释版), 【2012修正】
_VERSION = re.compile(r"[（(【\[]\s*\d{4}[^（）()【】\[\]]{0,12}[）)】\]]$")
_PLACE = re.compile(r"^(.{2,8}?(省|市|自治区|自治州|县|区)|国务院|最高人民)")


_MARKS = "《》〈〉<>＜＞﹤﹥«»"


def strip_marks(name: str) -> str:
    """The name without any title marks (《》〈〉<>＜＞﹤﹥) or spaces."""
    return re.sub(rf"[{_MARKS}\s]", "", name)


def _strip_version(name: str) -> str:
    while True:
        shorter = _VERSION.sub("", name)
        if shorter == name:
            return name
        name = shorter


def _with_inner_title(name: str, inner: str) -> str:
    return name.replace(inner, f"〈{inner}〉", 1) if inner else name


def canonical_law(raw: str, *, empty_inner: str | None = None) -> str | None:
    """The official full name of a cited law as 《…》, or None if `raw` does not name a law.

    Args:
        raw: the name as written, with or without title marks and version tags.
        empty_inner: the law to assume for an interpretation whose inner title was lost
            (《最高人民法院关于适用的解释》); None keeps the name as written.
    """
    raw = raw.strip().replace("髙", "高")  # 髙 is a variant of 高 (最髙人民法院)
    # the issuer written before the title: 最高人民法院《关于…的解释》 names one interpretation, not a nested title
    raw = re.sub(r"^((?:最高人民(?:法院|检察院)[、，和与]?)+)《(关于.*)》$", r"\1\2", raw)
    name = _strip_version(strip_marks(_strip_version(raw)))
    inner_match = re.search(
        r"[《〈<＜﹤]([^《》〈〉<>＜＞﹤﹥]+)[》〉>＞﹥]", raw[1:-1] if raw.startswith("《") else raw
    )
    inner = _strip_version(strip_marks(inner_match.group(1))) if inner_match else ""
    if name in INTERPRETATIONS:
        return f"《{INTERPRETATIONS[name]}》"
    if not LAW_SUFFIX.search(name):
        return None
    if re.match(r"关于(?:审理|适用|办理|人民法院|贯彻)", name) and re.search(
        r"(?:解释|规定|意见|批复)(?:（.+）)?$", name
    ):
        name = "最高人民法院" + name  # an interpretation cited without its issuer (最高人民法院《关于…的解释》)
    if inner:
        full_inner = _full_statute_name(inner)
        name = name.replace(inner, full_inner, 1)
        return f"《{_with_inner_title(name, full_inner)}》"
    if empty_inner and re.fullmatch(r"最高人民法院关于适用的解释", name):
        full_inner = _full_statute_name(empty_inner)
        return f"《最高人民法院关于适用〈{full_inner}〉的解释》"
    return f"《{_full_statute_name(name)}》"


def _full_statute_name(name: str) -> str:
    if name.startswith(PRC):
        return name
    if name in ABBREVIATIONS:
        return PRC + ABBREVIATIONS[name]
    # a short national law (著作权法, 城市房地产管理法); local and administrative rules keep their names
    if name.endswith("法") and not name.endswith("办法") and len(name) <= 12 and not _PLACE.match(name):
        return PRC + name
    return name


def law_key(name: str) -> str:
    """A comparison key for a law name: canonical, without title marks; unknown names are kept as written."""
    return strip_marks(canonical_law(name) or name)


def official_name(law: str) -> str:
    """A canonical name without its outer title marks; inner 〈〉 stay, as in the official title."""
    return law[1:-1] if law.startswith("《") and law.endswith("》") else law
