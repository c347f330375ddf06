"""A lay occupation for a KQ client, chosen from the theme's wording (J1 lets GPT-4o pick one per article).

Deterministic: keyword groups map a theme to plausible occupations, and a seeded choice picks one.
"""

from __future__ import annotations

from steps.personas.seeded import rng_for

_BY_KEYWORD: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("劳动", "工资", "社会保险", "工伤", "职工"), ("工厂车间工人", "外卖骑手", "物业保洁员")),
    (("妇女", "婚姻", "继承", "家庭", "未成年", "老年"), ("退休小学教师", "全职家庭主妇", "社区志愿者")),
    (("公司", "企业", "合伙", "证券", "破产", "票据", "外商投资"), ("小微企业老板", "财务出纳", "个体工商户")),
    (("农村", "土地", "农民", "合作社", "农业"), ("种粮大户", "村委会文书", "返乡创业青年")),
    (("商标", "著作权", "专利", "电子签名", "网络"), ("网店店主", "自由插画师", "自媒体博主")),
    (("海商", "船", "运输", "交通", "道路"), ("货车司机", "船员", "网约车司机")),
    (("刑", "犯罪", "治安"), ("保安", "小区门卫", "便利店店员")),
    (("环境", "污染", "食品", "药品"), ("餐馆厨师", "养殖户", "药店店员")),
)
_DEFAULT = ("普通上班族", "个体经营者", "大学生")


def occupation_for(text: str, *, seed: int, key: str) -> str:
    for keywords, occupations in _BY_KEYWORD:
        if any(k in text for k in keywords):
            return rng_for(seed, key, "occupation").choice(occupations)
    return rng_for(seed, key, "occupation").choice(_DEFAULT)
