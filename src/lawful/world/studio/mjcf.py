"""MJCF text for the studio scenes: geom attributes (:func:`sphere`, :func:`box`, :func:`cylinder`,
:func:`capsule`), joints and bodies as small dataclasses that write their XML."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol


class Stage(Protocol):
    """What a :class:`Body` needs of its stage (:class:`lawful.world.studio.engine.Stage` provides it)."""

    objects: dict[str, list[str]]

    def material(self, rgb, specular: float | None = None) -> str: ...

NO_CONTACT = {"contype": 0, "conaffinity": 0}


def sphere(r: float) -> dict:
    return {"type": "sphere", "size": f"{r:.6g}"}


def box(hx: float, hy: float, hz: float) -> dict:
    """Half-sizes."""
    return {"type": "box", "size": f"{hx:.6g} {hy:.6g} {hz:.6g}"}


def cylinder(r: float, half_len: float) -> dict:
    return {"type": "cylinder", "size": f"{r:.6g} {half_len:.6g}"}


def capsule(r: float, a: Sequence[float], b: Sequence[float]) -> dict:
    """A capsule (string, rod, arm) from point ``a`` to ``b`` in the body frame."""
    return {"type": "capsule", "size": f"{r:.6g}", "fromto": " ".join(f"{v:.6g}" for v in (*a, *b))}


def _attrs(d: dict) -> str:
    return " ".join(f'{k}="{v}"' for k, v in d.items() if v is not None)


def _vec(v) -> str:
    return " ".join(f"{float(x):.6g}" for x in v)


@dataclass
class Joint:
    """A joint: ``type`` free | hinge | slide; ``stiffness`` and ``springref`` make it a spring."""

    type: str = "free"
    axis: Sequence[float] = (0, 0, 1)
    pos: Sequence[float] = (0, 0, 0)
    stiffness: float = 0.0
    springref: float = 0.0
    damping: float = 0.0
    name: str | None = None

    def xml(self, body: str) -> str:
        if self.type == "free":
            return f'<freejoint name="{self.name or body + "_j"}"/>'
        return (f'<joint name="{self.name or body + "_j"}" type="{self.type}" axis="{_vec(self.axis)}" '
                f'pos="{_vec(self.pos)}" stiffness="{self.stiffness:.8g}" springref="{self.springref:.8g}" '
                f'damping="{self.damping:.8g}" armature="0" frictionloss="0"/>')


@dataclass
class Body:
    """A body in the MJCF tree; ``geom`` and ``body`` add to it."""

    stage: Stage
    name: str
    pos: Sequence[float]
    joint: Joint | str | None = None
    mocap: bool = False
    euler: Sequence[float] | None = None
    parts: list[str] = field(default_factory=list)

    def geom(self, shape: dict, rgb=(128, 128, 128), obj: str | None = None, pos=(0, 0, 0), euler=None,
             specular: float | None = None, material: str | None = None, **attrs) -> "Body":
        """Add a geom; ``obj`` tags it as (part of) a watched object for masks and boxes."""
        name = f"{self.name}_g{len(self.parts)}"
        mat = material or self.stage.material(rgb, specular)
        a = {"name": name, **shape, "material": mat, "pos": _vec(pos), "euler": _vec(euler) if euler else None}
        a.update({k: (_vec(v) if isinstance(v, (tuple, list)) else v) for k, v in attrs.items()})
        if self.mocap:
            a.update(NO_CONTACT)
        self.parts.append(f"<geom {_attrs(a)}/>")
        if obj is not None:
            self.stage.objects.setdefault(obj, []).append(name)
        return self

    def site(self, name: str, pos=(0, 0, 0)) -> "Body":
        self.parts.append(f'<site name="{name}" pos="{_vec(pos)}" size="0.002"/>')
        return self

    def body(self, name: str, pos, joint=None, euler=None) -> "Body":
        child = Body(self.stage, name, pos, joint, False, euler)
        self.parts.append(child)
        return child

    def xml(self) -> str:
        j = self.joint if not isinstance(self.joint, str) else Joint(self.joint)
        head = f'<body name="{self.name}" pos="{_vec(self.pos)}"' + (' mocap="true"' if self.mocap else "")
        head += f' euler="{_vec(self.euler)}">' if self.euler else ">"
        inner = [j.xml(self.name)] if j is not None else []
        inner += [p.xml() if isinstance(p, Body) else p for p in self.parts]
        return head + "".join(inner) + "</body>"
