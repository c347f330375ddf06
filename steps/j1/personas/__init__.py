"""Personas for the lay roles: Big-Five levels, behaviour style, legal-sense level and distractors."""
