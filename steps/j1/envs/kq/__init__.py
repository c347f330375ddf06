"""KQ — Knowledge Questioning (J1 level I): a layperson asks a legal professional about a theme."""
