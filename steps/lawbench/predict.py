"""Prompting any model on LawBench exactly as LawBench did, and collecting its predictions.

The prompt sent to a model is the data file's `instruction + "\\n" + question` as one user message (spec
lawbench.md §3.1; one-shot files carry their demonstration inside `instruction`), cut to `lawbench.max_input_tokens`
as the paper cut it (steps.lawbench.truncate); each row keeps the whole prompt in `prompt` (as LawBench's published
`origin_prompt`, which task 2-1's scorer reads its source sentence from) and records the prompt's tokens, whether it
was cut, the text sent when it was (`prompt_sent`) and the counting rule. Failed calls are kept as rows with their
failure kind and no prediction, so they are counted, never scored as empty answers.

A reasoning model's trace never reaches the scorer: the door gives the answer only (steps/llm/reasoning.py), and
the trace is kept in the `reasoning` column. A reply that holds nothing once the trace is removed (and was not cut
at max_tokens, which is a failed call) is the model's own empty answer: its row has `outcome` `empty_answer` and the
prediction `""`, which LawBench's scorers score as they scored the empty generations among its published
predictions (spec lawbench.md §3.2, §4: no answer found, an abstention where the task counts them).
"""

from __future__ import annotations

import pandas as pd

from steps.lawbench.metrics.tasks import TASK_IDS
from steps.lawbench.truncate import Side, Tokenizer, cut_prompts
from steps.llm import ModelConfig, Reply, Request, outcome, reasoning_of

SCENARIO = "lawbench"
PROMPT_VERSION = 1  # bump when the prompt construction changes: it enters the run id


def select_items(
    items: pd.DataFrame, setting: str, limit: int | None = None, tasks: list[str] | None = None
) -> pd.DataFrame:
    """What stage `lawbench_predict` sends of the items: one setting, in (task, idx) order; with `limit`, the first
    N items of each task; with `tasks` (`lawbench.tasks`), those tasks only (an unknown one is an error)."""
    items = items[items.setting == setting].sort_values(["task", "idx"], kind="stable").reset_index(drop=True)
    if limit is not None:
        items = items[items.idx < limit].reset_index(drop=True)
    if tasks:
        unknown = sorted(set(tasks) - set(items.task))
        if unknown:
            raise ValueError(f"lawbench.tasks: unknown {', '.join(unknown)}; the tasks are {', '.join(TASK_IDS)}")
        items = items[items.task.isin(tasks)].reset_index(drop=True)
    return items


def prompt_text(instruction: str, question: str) -> str:
    return f"{instruction}\n{question}"


def with_prompts(
    items: pd.DataFrame, limit: int | None, tokenizer: Tokenizer | None = None, side: Side = "right"
) -> pd.DataFrame:
    """The items with their whole prompt (`prompt`), the text sent when it was over `limit` tokens and cut
    (`prompt_sent`; None: the whole prompt was sent), its tokens before the cut (`input_tokens`), whether it was cut
    (`input_truncated`) and how tokens were counted (`input_rule`)."""
    prompts = [prompt_text(i, q) for i, q in zip(items.instruction, items.question, strict=True)]
    cuts = cut_prompts(prompts, limit, tokenizer, side)
    return items.assign(
        prompt=prompts,
        prompt_sent=[c.text if c.truncated else None for c in cuts],
        input_tokens=[c.tokens for c in cuts],
        input_truncated=[c.truncated for c in cuts],
        input_rule=[c.rule for c in cuts],
    )


def build_requests(items: pd.DataFrame, model: ModelConfig) -> list[Request]:
    """One request per item (setting, task, idx) of `with_prompts`; the reference travels in metadata for the
    scripted oracle."""
    return [
        Request(
            model=model,
            messages=[{"role": "user", "content": row.prompt_sent if isinstance(row.prompt_sent, str) else row.prompt}],
            purpose="agent",
            metadata={
                "scenario": SCENARIO,
                "instance_id": row.item_id,
                "task": row.task,
                "setting": row.setting,
                "idx": int(row.idx),
                "reference": row.answer,
            },
        )
        for row in items.itertuples(index=False)
    ]


def predictions_frame(items: pd.DataFrame, replies: list[Reply], model_name: str) -> pd.DataFrame:
    """The predictions table: the published layout plus the input's truncation, call key, the reply's truncation,
    failure, outcome and reasoning; `items` as `with_prompts` returns them."""
    if len(items) != len(replies):
        raise ValueError(f"{len(items)} items but {len(replies)} replies")
    return pd.DataFrame(
        {
            "setting": items.setting.to_numpy(),
            "model": model_name,
            "task": items.task.to_numpy(),
            "idx": items.idx.to_numpy(),
            "prompt": items.prompt.to_numpy(),
            "prompt_role": "user",
            "prompt_sent": items.prompt_sent.to_numpy(),
            "input_tokens": items.input_tokens.to_numpy(),
            "input_truncated": items.input_truncated.to_numpy(),
            "input_rule": items.input_rule.to_numpy(),
            "prediction": [r.text if r.ok else None for r in replies],
            "reference": items.answer.to_numpy(),
            "call_key": [r.call_key for r in replies],
            "truncated": [r.ok and r.truncated for r in replies],
            "failure_kind": [None if r.ok else r.kind.value for r in replies],
            "outcome": [outcome(r) if r.ok else None for r in replies],
            "reasoning": [reasoning_of(r) for r in replies],
        }
    )
