"""What the six J1-ENVS environments share: topic lists, case fields, the complaint and defence templates."""
