"""UCL-Bench (Gan, Feng et al.): a simulated user who holds the information and the need consults the agent
for up to three exchanges on 22 tasks; a judge compares each dialogue with a reference model's, in both
orders, using the experts' answer guidance; and, ours, a pointwise score against the same guidance.

Import what you use from its modules (the package itself imports nothing, so `steps.ucl.params` stays light).
`import steps.ucl.scripted` registers the offline user, oracle and proxy judge for scenario UCL.
"""
