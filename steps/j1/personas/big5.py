"""Big-Five trait levels and J1's redistribution of "medium" (spec j1-envs §4, §9.3-22).

Each trait is first assigned high / medium / low from the role's information (by the environment model);
every "medium" is then re-drawn across high : medium : low with ratio 2 : 1 : 2, independently per trait,
with an RNG seeded by (seed, instance, role, trait) so the same params give the same personas.
"""

from __future__ import annotations

from steps.j1.personas.seeded import rng_for

TRAITS = ("extraversion", "neuroticism", "openness", "agreeableness", "conscientiousness")
LEVELS = ("high", "medium", "low")
REDRAW_WEIGHTS = {"high": 2, "medium": 1, "low": 2}

TRAIT_ZH = {
    "extraversion": "外向性",
    "neuroticism": "神经质",
    "openness": "开放性",
    "agreeableness": "宜人性",
    "conscientiousness": "尽责性",
}
LEVEL_ZH = {"high": "高", "medium": "中", "low": "低"}


def redistribute(levels: dict[str, str], *, seed: int, key: str) -> dict[str, str]:
    """Re-draw every "medium" level 2:1:2 over high/medium/low; high and low are kept."""
    out = {}
    for trait in TRAITS:
        level = levels[trait]
        if level not in LEVELS:
            raise ValueError(f"{trait}: level {level!r} is not one of {LEVELS}")
        if level == "medium":
            rng = rng_for(seed, key, trait)
            level = rng.choices(list(REDRAW_WEIGHTS), weights=list(REDRAW_WEIGHTS.values()))[0]
        out[trait] = level
    return out


def describe(levels: dict[str, str]) -> str:
    """'外向性高、神经质低、…' — the compact Chinese rendering used in prompts."""
    return "、".join(f"{TRAIT_ZH[t]}{LEVEL_ZH[levels[t]]}" for t in TRAITS)
