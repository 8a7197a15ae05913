"""PhyGround's 13-law taxonomy in three domains, and its three general dimensions (seed 001 §3.2, §A.2.2).

The judge's wording for each law (question and observation sub-questions) lives in the rubric
``phyground-law``; this module is the structure every score is grouped by.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Law:
    key: str
    name: str
    domain: str


DOMAINS: tuple[str, ...] = ("solid_body", "fluid", "optical")

LAWS: tuple[Law, ...] = (
    Law("gravity", "Gravity", "solid_body"),
    Law("inertia", "Inertia", "solid_body"),
    Law("momentum", "Momentum", "solid_body"),
    Law("collision", "Collision", "solid_body"),
    Law("impenetrability", "Impenetrability", "solid_body"),
    Law("material", "Material", "solid_body"),
    Law("flow_dynamics", "Flow dynamics", "fluid"),
    Law("boundary_interaction", "Boundary (liquid-solid) interaction", "fluid"),
    Law("displacement", "Displacement", "fluid"),
    Law("continuity", "Continuity", "fluid"),
    Law("buoyancy", "Buoyancy", "fluid"),
    Law("reflection", "Reflection", "optical"),
    Law("shadow", "Shadow", "optical"),
)

LAW_DOMAIN: dict[str, str] = {law.key: law.domain for law in LAWS}

GENERAL_DIMENSIONS: tuple[str, ...] = ("semantic_alignment", "physical_temporal_validity", "object_persistence")

SCALE: tuple[float, float] = (1.0, 5.0)
