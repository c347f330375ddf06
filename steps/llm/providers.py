"""litellm's provider prefixes, as a list kept beside this module (`providers.txt`), so that checking a model string
(every `params.yaml` load, in every stage process) does not import litellm, which costs some 3 s of CPU.

The list is litellm's `provider_list` at the pinned version; tests/llm/test_providers.py fails, naming the
difference, when an upgraded litellm knows other providers. Rewrite it with `python -m steps.llm.providers`.
"""

from __future__ import annotations

from pathlib import Path

LIST = Path(__file__).with_name("providers.txt")


def litellm_providers() -> list[str]:
    """The installed litellm's own provider prefixes, sorted, without those registered at run time (our `scripted`
    provider, litellm.custom_provider_map). Imports litellm, after steps/llm/__init__.py's price-map setting, as
    every import of this module is."""
    import litellm

    registered = {str(entry["provider"]) for entry in litellm.custom_provider_map}
    return sorted(
        str(getattr(p, "value", p)) for p in litellm.provider_list if str(getattr(p, "value", p)) not in registered
    )


def listed_providers() -> list[str]:
    """The provider prefixes in `providers.txt`."""
    return LIST.read_text(encoding="utf-8").split()


if __name__ == "__main__":
    LIST.write_text("\n".join(litellm_providers()) + "\n", encoding="utf-8")
    print(f"{LIST}: {len(listed_providers())} providers")
