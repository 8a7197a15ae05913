"""Paired-object scenes (Principia): what the anti-physics twins of both render styles share."""

# Anti-physics twins break an invariant by this factor on the ratio of the two sides, so
# S = 2 / (K + 1) = 0.56 (the suite's pass mark for a counterfactual is S <= 0.6).
ANTI_FACTOR = 2.6
