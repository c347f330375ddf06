"""The scenarios: one package per environment (its protocol, templates, instance builder, scripted policies)."""
