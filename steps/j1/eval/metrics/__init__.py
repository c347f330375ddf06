"""J1-EVAL rule metrics (spec j1-envs §5): I-1, the statute half of I-2, II-1, II-2's exact-match fields,
III-3, III-4 and III-6, plus UNI and the texts the LLM judges compare. Every function is pure and returns
its value with the parsed evidence behind it; deliverables are read with the extraction parsers.
"""

from steps.j1.eval.metrics.consultation import (
    BinaryAccuracy,
    TopicCheck,
    binary_accuracy,
    non_binary_score,
    statute_topic_score,
    topic_text,
)
from steps.j1.eval.metrics.crime import CrimeAccuracy, crime_accuracy
from steps.j1.eval.metrics.documents import (
    COMPLAINT,
    DEFENCE,
    DocumentFormat,
    FormatScore,
    document_score,
    document_sections,
    format_following,
)
from steps.j1.eval.metrics.judgment import candidate_reasoning, candidate_rulings, reference_rulings, without_lead
from steps.j1.eval.metrics.laws import LawAccuracy, LawRef, court_law_refs, law_accuracy
from steps.j1.eval.metrics.parties import FieldMatch, PartyFacts, party_fields
from steps.j1.eval.metrics.penalty import NORMALISERS, PenaltyDeviation, Sentence, penalty_deviation
from steps.j1.eval.metrics.trial import Exchange, TrialValidity, Utterance, group_exchanges, trial_validity

__all__ = [
    "COMPLAINT",
    "DEFENCE",
    "NORMALISERS",
    "BinaryAccuracy",
    "CrimeAccuracy",
    "DocumentFormat",
    "Exchange",
    "FieldMatch",
    "FormatScore",
    "LawAccuracy",
    "LawRef",
    "PartyFacts",
    "PenaltyDeviation",
    "Sentence",
    "TopicCheck",
    "TrialValidity",
    "Utterance",
    "binary_accuracy",
    "candidate_reasoning",
    "candidate_rulings",
    "court_law_refs",
    "crime_accuracy",
    "document_score",
    "document_sections",
    "format_following",
    "group_exchanges",
    "law_accuracy",
    "non_binary_score",
    "party_fields",
    "penalty_deviation",
    "reference_rulings",
    "statute_topic_score",
    "topic_text",
    "trial_validity",
    "without_lead",
]
