"""Who the lay client is: an occupation for a KQ client, a name for an LC client (J1 has GPT-4o pick them).

Deterministic: keyword groups map a theme to plausible occupations and a seeded choice picks one; names are
seeded draws from common surnames and given names. The seed and the source key fix every choice.
"""

from __future__ import annotations

from steps.j1.personas.seeded import rng_for

_BY_KEYWORD: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("劳动", "工资", "社会保险", "工伤", "职工"), ("工厂车间工人", "外卖骑手", "物业保洁员")),
    (("妇女", "婚姻", "继承", "家庭", "未成年", "老年", "收养"), ("退休小学教师", "全职家庭主妇", "社区志愿者")),
    (
        ("公司", "企业", "合伙", "证券", "破产", "票据", "外商投资", "信用证"),
        ("小微企业老板", "财务出纳", "个体工商户"),
    ),
    (("农村", "土地", "农民", "合作社", "农业"), ("种粮大户", "村委会文书", "返乡创业青年")),
    (("商标", "著作权", "专利", "电子签名", "网络"), ("网店店主", "自由插画师", "自媒体博主")),
    (("海商", "船", "运输", "交通", "道路"), ("货车司机", "船员", "网约车司机")),
    (("刑", "犯罪", "治安", "监狱"), ("保安", "小区门卫", "便利店店员")),
    (("环境", "污染", "食品", "药品"), ("餐馆厨师", "养殖户", "药店店员")),
    (("诉讼", "审判", "法院", "仲裁", "证据"), ("房产中介", "小区业委会成员", "超市店长")),
)
_DEFAULT = ("普通上班族", "个体经营者", "大学生")
_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高"
_GIVEN = ("建国", "秀英", "志强", "丽华", "海涛", "春梅", "晓东", "桂芳", "国庆", "淑珍", "文杰", "雪梅")


def occupation_for(text: str, *, seed: int, key: str) -> str:
    for keywords, occupations in _BY_KEYWORD:
        if any(k in text for k in keywords):
            return rng_for(seed, key, "occupation").choice(occupations)
    return rng_for(seed, key, "occupation").choice(_DEFAULT)


def client_name(*, seed: int, key: str) -> str:
    rng = rng_for(seed, key, "name")
    return rng.choice(_SURNAMES) + rng.choice(_GIVEN)
