"""Momentum (Principia Table 2, rows 6-7), seen from the side: balls roll down and push blocks. Scene,
physics and measurement shared by :mod:`~lawful.suites.principia.momentum_height` and ``momentum_mass``.

A tent ramp stands in the middle of the floor. A ball on each face rolls down, across a short
stretch of floor, and hits a block resting there; the block slides outward and stops by floor
friction. The block's slide grows with the ball's speed at impact and shrinks with the block's mass.

- ``momentum_height``: identical blocks, balls released from heights ``h1 != h2``: the block
  struck by the ball from higher up slides farther (``x ∝ h``).
- ``momentum_mass``: balls released from the same height, blocks of masses ``m1 != m2``: the
  heavier block slides less (``x ∝ 1/m``).

Both feed the ``momentum`` column as ordering tests (1 when the order holds, else 0):
``F1`` = slide of the block the law says must slide farther, ``F2`` = the other's; the order
holds when ``F1 > F2``. Ball ``ball_i`` strikes ``block_i``.

Slide (appendix A.2, adapted to the side view): the largest horizontal displacement of the
block's centroid from its first-frame position. Which ball starts higher: smaller first-frame
centroid ``y``. Block masses: ``known['mass']`` of the objects when both are given, else
``(side)^3`` from the case's first-frame boxes (same material).
DCS window per ball: release → the first frame its block has moved from its resting position
(median of its first 3 samples) by 1.5 px or by more than its measured noise allows (the collision); where the
block was struck out of sight (last seen at rest, next seen moved, across a gap no crossing is read over), the
window ends at its last sample at rest (a partial window, ``notes['moved_unseen']``) and the slide is the largest
displacement seen.

Objects ``ball_1``, ``ball_2``, ``block_1``, ``block_2``; nothing else needed in ``case.known``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case
from lawful.perceive import events
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.draw import Block, Sphere
from lawful.world.physics import rolling_distance

from lawful.suites.principia import _scene as sc
from lawful.perceive import noise
from lawful.suites.principia._common import (
    DCS_FALSE_ALARM,
    PrincipiaTask,
    add_event,
    coord_noise,
    finish_dcs,
    record_dcs,
)

BALLS = ("ball_1", "ball_2")
BLOCKS = ("block_1", "block_2")
FOOT_DX = 115.0
K_BALL = 0.4
RESTITUTION = 0.6  # ball-block collision
MOVE_PX = 1.5  # least block displacement that marks the collision (raised by the block's measured noise)
SLIDING = "and it was not seen to stop before"  # a block lost for good mid-slide: its slide is at least the seen one
STOP_SAMPLES = 3  # a block lost for good stopped before if seen this many samples at its farthest (within noise)


class Momentum(PrincipiaTask):
    """Shared scene, physics and measurement of the two momentum variants."""

    phenomena = ("momentum",)
    ordering_columns = ("momentum",)
    object_ids = BALLS + BLOCKS
    dcs_direction = "image y, downwards (the balls roll down the tent ramp; level stretches move within noise)"
    variant: str = ""

    # ------------------------------------------------------------------ cases
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = sc.rng_for(seed)
        ground_y = round(float(rng.uniform(318, 330)), 1)
        theta = math.radians(float(rng.uniform(28, 36)))
        r = float(rng.uniform(9, 11))
        k = {"ground_y": ground_y, "apex_y": round(ground_y - FOOT_DX * math.tan(theta), 3), "theta": theta,
             "radius_px": round(r, 3), "g": sc.G}
        faces = _faces(k)
        s_kink = faces[0].length - r * math.tan(theta / 2)
        top = r + 5.0  # highest start: contact point px down the slope from the apex
        if self.variant == "height":
            ratio = float(rng.uniform(1.5, 3.0))
            higher = int(rng.integers(2))
            drops = [(s_kink - top) / ratio] * 2
            drops[higher] = s_kink - top
            b = float(rng.uniform(24, 30))
            sides = [b, b]
        else:
            drops = [(s_kink - top) * float(rng.uniform(0.75, 1.0))] * 2
            small = float(rng.uniform(22, 26))
            heavy = int(rng.integers(2))
            sides = [small, small]
            sides[heavy] = small * float(rng.uniform(1.3, 1.45))
        k["start_s"] = [round(s_kink - d, 3) for d in drops]
        px_per_m = float(rng.uniform(180, 240))
        ball_mass = float(rng.uniform(0.1, 0.2))  # kg; blocks of light wood, comparable in mass
        light = ball_mass * float(rng.uniform(0.7, 1.2)) / min(sides) ** 3  # kg per px^3 (one material)
        masses = [light * s**3 for s in sides]
        gap = float(rng.uniform(16, 28))
        k.update({"px_per_m": round(px_per_m, 4), "ball_mass_kg": ball_mass, "block_mass_kg": masses,
                  "side_px": [round(s, 3) for s in sides], "floor_gap_px": round(gap, 3),
                  "restitution": RESTITUTION, "colors": sc.pick_colors(seed, 4),
                  "style_seed": sc.style_seed(index, seed)})
        # friction chosen so the farther block slides 85-110 px; the same for both blocks
        speeds = _block_speeds(k)
        target = float(rng.uniform(85, 110)) / px_per_m
        k["mu"] = max(speeds) ** 2 / (2 * sc.G * target) / px_per_m**2
        slides = [v * v / (2 * k["mu"] * sc.G * px_per_m) for v in speeds]  # px
        # the twin swaps the slides: the block that should slide less slides farther
        k["anti"] = {"slide_px": [slides[1], slides[0]]}
        poses = _poses(k, np.zeros(1), "true")
        items = _items(k, {o: p[0] for o, p in poses.items()})
        c = sc.colors(k, 4)
        objects = [sc.spec(o, "sphere", c[i], items[i], mass=ball_mass) for i, o in enumerate(BALLS)]
        objects += [sc.spec(o, "block", c[2 + i], items[2 + i], mass=masses[i]) for i, o in enumerate(BLOCKS)]
        n = [sc.color_name(x) for x in c]
        if self.variant == "height":
            setup = (f"A {n[0]} ball sits on the left slope and a {n[1]} ball of the same kind on the right slope, "
                     f"one much higher up than the other. On the floor beyond each slope rests a wooden block, "
                     f"{n[2]} on the left and {n[3]} on the right, identical in size and weight.")
        else:
            setup = (f"A {n[0]} ball sits on the left slope and a {n[1]} ball of the same kind on the right slope, "
                     f"both at the same height. On the floor beyond each slope rests a wooden block, {n[2]} on the "
                     f"left and {n[3]} on the right; one block is bigger and heavier than the other.")
        prompt = (
            "A fixed camera looks from the side at a tent-shaped ramp standing on the floor. " + setup +
            " Both balls are released from rest together, roll down and across the floor, and knock into their "
            "blocks, which slide away from the ramp and come to a stop."
        )
        case = sc.make(self.name, index, seed, prompt=prompt, duration=2.5, objects=objects, known=k,
                       assumptions=["identical balls", "same floor under both blocks", "rolling without slipping",
                                    "head-on collisions along the floor"],
                       criteria=["momentum"])
        case.truth = _truth(case)
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: str = "true") -> Iterator[np.ndarray]:
        k = case.known
        poses = _poses(k, sc.frame_times(case), law)
        left, right = _faces(k)
        scene = sc.new_scene(k).ground(k["ground_y"]).ramp(sc.tent_polygon(left, right))
        return sc.render_frames(case, scene, lambda f: _items(k, {o: p[f] for o, p in poses.items()}))

    # ------------------------------------------------------------------ measure
    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        if why := self.case_problem(case):
            return self.bad_case(why)
        m = Measurement()
        slides, at_least = {}, {}
        for ball, block in zip(BALLS, BLOCKS):
            tb = tracks[block]
            x = np.asarray(tb.x, float)
            # the block rests until struck: its start is the median of its first samples, and it has
            # moved once it leaves that by MOVE_PX or by more than its noise allows (``moved``)
            seen = x[np.isfinite(x)][:3]
            x0 = float(np.median(seen)) if len(seen) else math.nan
            moved = noise.step_threshold(coord_noise(tb, x), DCS_FALSE_ALARM, floor=MOVE_PX)
            sx = events.smooth(x, 5)
            dx = np.abs(sx - x0) if math.isfinite(x0) else np.full_like(x, np.nan)
            hit = events.crossing(dx, moved, +1) if math.isfinite(x0) else None  # smoothed: one noisy sample is no hit
            if not math.isfinite(x0):  # a block never seen: its ball's window has no end, nothing can be said
                m.notes.setdefault("dcs_state", {})[ball] = "not_visible"
                m.set(f"dcs_{ball}", None, f"{block} is never seen, so {ball}'s release window has no end")
                slides[block] = None
                m.set(f"slide_{block}", None, f"{block}: never seen")
                continue
            unseen = None if hit is not None else _moved_unseen(dx, moved)
            if unseen is None:
                record_dcs(m, tracks[ball], hit)
            else:  # struck while the block was out of sight: the window ends by the last sample it was seen at rest
                a, b = unseen
                m.notes.setdefault("moved_unseen", {})[block] = [a, b]
                record_dcs(m, tracks[ball], a, lost=a, cut=f"{block} struck unseen between samples {a} and {b}")
            last = int(np.flatnonzero(np.isfinite(x))[-1])
            lost = last < len(x) - 1 - events.MAX_BRIDGED_GAP  # not seen again to the end
            if (hit is None and unseen is None) or not np.isfinite(dx).any():
                slides[block] = None
                # lost for good before any motion showed (studio seed 7000: an olive block on a green floor lost while
                # the ball covered it at the collision, then slid 90 px unseen): it may well have moved
                m.set(f"slide_{block}", None, f"{block}: not seen from sample {last + 1} on, before it was seen to move"
                      if lost else f"{block}: never moves")
                continue
            if why := _pulled(tracks[ball], sx, x0, moved):
                slides[block] = None
                m.set(f"slide_{block}", None, f"{block}: {why}")
                continue
            j = int(np.nanargmax(dx))
            if lost and (why := _unknown_slide(tracks[ball], tb, x0, dx, j, last, moved)):
                slides[block] = None
                m.set(f"slide_{block}", None, f"{block}: not seen from sample {last + 1} on, {why}: its slide is not known")
                if why == SLIDING:  # struck and seen sliding: it slid at least this far
                    at_least[block] = float(dx[j])
                continue
            if hit is not None:
                add_event(m, tracks, block, "collision", hit)
            slides[block] = float(dx[j])
            m.set(f"slide_{block}", slides[block])
            add_event(m, tracks, block, "farthest", j, value=slides[block])
        finish_dcs(m, BALLS, tracks, case.width)
        first, second, why = self._expected_order(case, tracks)
        if why:
            m.set("F1", None, why)
            m.set("F2", None, why)
            return m
        m.notes["farther"] = first
        _bounded(slides, at_least, first, second, m)
        m.set("F1", slides[first], m.missing.get(f"slide_{first}", ""))
        m.set("F2", slides[second], m.missing.get(f"slide_{second}", ""))
        return m

    def _expected_order(self, case: Case, tracks: Tracks) -> tuple[str, str, str]:
        """``(block that must slide farther, the other, reason if it cannot be said)``."""
        raise NotImplementedError


def _unknown_slide(tball, tb, x0: float, dx: np.ndarray, j: int, last: int, moved: float) -> str | None:
    """Why the slide of a block lost for good after sample ``last`` is not known, or None: its ball was not seen to
    reach it while it was seen (within half their widths, ``moved`` px and the ball's own step of its rest ``x0``: a
    block cannot move before it is struck, and what it showed was noise: studio seed 7400, a block found by contrast
    lost at rest after 4 samples jittering 1.7 px, whose "slide" scored both clips 1), or it was not seen to stop
    (:data:`SLIDING`: its last :data:`STOP_SAMPLES` samples seen within ``moved`` of its farthest, ``dx[j]``): it may
    have slid on unseen."""
    bx = np.asarray(tball.x, float)
    step = np.abs(np.diff(bx))
    step = np.fmax(np.append(step, np.nan), np.insert(step, 0, np.nan))  # (it strikes between samples)
    reach = 0.5 * (np.asarray(tball.width_px, float) + np.nanmedian(np.asarray(tb.width_px, float))) + moved
    near = np.flatnonzero(np.abs(bx - x0) <= reach + np.nan_to_num(step))  # (NaN where the ball is not seen)
    if not len(near) or near[0] > last:
        return "before its ball was seen to reach it"
    tail = dx[:last + 1][np.isfinite(dx[:last + 1])][-STOP_SAMPLES:]
    if len(tail) < STOP_SAMPLES or np.any(np.abs(tail - dx[j]) > moved):
        return SLIDING
    return None


def _pulled(tball, x: np.ndarray, x0: float, moved: float) -> str | None:
    """Why a block's track is not the block, or None: a ball pushes its block away from itself, so a block seen more
    than ``moved`` px from its rest ``x0`` towards the side its ball came from (the ball's first ``x``) was not pushed
    there (``x``: the block's smoothed ``x``, as its slide is read, so one sample pulled by a blob it shared is not).
    Studio momentum_height seed 8900: a magenta ball and a purple block share a colour group; both were lost in the
    collision and the tracks came back swapped, the "block" 17.5 px back towards the ramp where the ball had stopped;
    its slide, 17 px of a true 110, failed the order of a lawful clip (0, scored)."""
    bx = np.asarray(tball.x, float)
    b0 = bx[np.isfinite(bx)][:1]
    if not len(b0) or b0[0] == x0:
        return None
    back = (x - x0) * np.sign(b0[0] - x0)  # displacement towards the ball's side
    at = np.flatnonzero(np.nan_to_num(back, nan=-np.inf) > moved)
    if not len(at):
        return None
    return (f"seen {back[at[0]]:.1f} px towards its ball's side at sample {at[0]}, against the push: the track may"
            " have taken the ball (a colour group of both), its slide is not known")


def _bounded(slides: dict, at_least: dict, first: str, second: str, m: Measurement) -> None:
    """Where a block lost mid-slide (``at_least``: the displacement seen, a lower bound of its slide) decides the order
    all the same, its bound stands in for its slide: the block that must slide farther had already passed the other's
    whole slide (a 10 % zoom took a studio block out of the frame at 120 px, the other slid 68), or the other one
    had already reached it (the order fails). ``notes['slide_at_least']`` records it."""
    a, b = slides[first], slides[second]
    if a is None and b is not None and at_least.get(first, -math.inf) > b:
        k = first
    elif b is None and a is not None and at_least.get(second, -math.inf) >= a:
        k = second
    else:
        return
    slides[k] = at_least[k]
    m.notes["slide_at_least"] = {k: at_least[k]}


def _moved_unseen(dx: np.ndarray, moved: float) -> tuple[int, int] | None:
    """``(a, b)`` where a block was last seen at rest (sample ``a``) and next seen past ``moved`` px from its rest
    (sample ``b``) across a gap no crossing is read over (:data:`lawful.perceive.events.MAX_BRIDGED_GAP`), else None.

    Studio seed 7200: a block lost at rest from sample 5 and found again, 39 px on, from sample 28; "never moves"
    would have ended its ball's window nowhere, and the ball's bounce off the block then failed the DCS gate."""
    seen = np.flatnonzero(np.isfinite(dx))
    out = seen[dx[seen] > moved]
    if not len(out) or out[0] == seen[0]:
        return None
    b = int(out[0])
    a = int(seen[seen < b][-1])
    return (a, b) if b - a > events.MAX_BRIDGED_GAP + 1 else None


# ----------------------------------------------------------------------------- physics and drawing


def _faces(k: dict) -> tuple[sc.Face, sc.Face]:
    return sc.tent(320.0, k["apex_y"], FOOT_DX, k["ground_y"])


def _ball_paths(k: dict) -> list[sc.Polyline]:
    return [f.offset_path(k["radius_px"], s, 200.0) for f, s in zip(_faces(k), k["start_s"])]


def _impact_speeds(k: dict) -> list[float]:
    """Ball speed (px/s) on the floor, after rolling down from rest."""
    a = 2 * rolling_distance(1.0, k["theta"], K_BALL, k["g"]) * k["px_per_m"]
    return [math.sqrt(2 * a * float(p.cum[1])) for p in _ball_paths(k)]


def _block_speeds(k: dict) -> list[float]:
    """Block speed (px/s) just after the collision: ``(1 + e) m v / (m + M)``."""
    mb = k["ball_mass_kg"]
    return [(1 + k["restitution"]) * mb * v / (mb + big) for v, big in zip(_impact_speeds(k), k["block_mass_kg"])]


def _poses(k: dict, t: np.ndarray, law: str) -> dict[str, np.ndarray]:
    """``[T, 3]`` (x, y, angle) per object."""
    out = {}
    r, mb = k["radius_px"], k["ball_mass_kg"]
    a = 2 * rolling_distance(1.0, k["theta"], K_BALL, k["g"]) * k["px_per_m"]
    v_blocks = _block_speeds(k)
    slides = k["anti"]["slide_px"] if law == "anti" else [v * v / (2 * k["mu"] * k["g"] * k["px_per_m"])
                                                          for v in v_blocks]
    for i, (face, path) in enumerate(zip(_faces(k), _ball_paths(k))):
        side = face.side
        slope = float(path.cum[1])
        v = math.sqrt(2 * a * slope)
        t_kink = v / a
        kink_x = path.points[1][0]
        face_x = kink_x + side * (k["floor_gap_px"] + r)  # block's near face
        t_hit = t_kink + k["floor_gap_px"] / v
        sigma = np.where(t < t_kink, 0.5 * a * t * t, slope + v * (t - t_kink))
        # after the hit the ball keeps (m - e M) v / (m + M), dying away within a few px
        big = k["block_mass_kg"][i]
        v_after = (mb - k["restitution"] * big) * v / (mb + big)
        stop = 6.0
        dec = max(v_after * v_after / (2 * stop), 1e-9)
        tau = np.clip(t - t_hit, 0.0, abs(v_after) / dec)
        hit_sigma = slope + k["floor_gap_px"]
        sigma = np.where(t < t_hit, sigma, hit_sigma + np.sign(v_after) * (abs(v_after) * tau - 0.5 * dec * tau * tau))
        bx, by = path.at(sigma)
        # block: slides ``slides[i]`` px with uniform deceleration, starting at the hit
        w = k["side_px"][i]
        V = v_blocks[i]
        d_blk = V * V / (2 * slides[i])
        tb = np.clip(t - t_hit, 0.0, V / d_blk)
        u = V * tb - 0.5 * d_blk * tb * tb
        blk_x = face_x + side * (w / 2 + u)
        bx = np.where(side * (bx - (blk_x - side * (w / 2 + r))) > 0, blk_x - side * (w / 2 + r), bx)  # never inside
        out[BALLS[i]] = np.column_stack([bx, by, np.zeros_like(t)])
        out[BLOCKS[i]] = np.column_stack([blk_x, np.full_like(t, k["ground_y"] - w / 2), np.zeros_like(t)])
    return out


def _items(k: dict, pose: dict[str, np.ndarray]) -> list:
    c = sc.colors(k, 4)
    items: list = [Sphere(float(pose[b][0]), float(pose[b][1]), k["radius_px"], c[i]) for i, b in enumerate(BALLS)]
    items += [Block(float(pose[b][0]), float(pose[b][1]), k["side_px"][i], k["side_px"][i], 0.0, c[2 + i])
              for i, b in enumerate(BLOCKS)]
    return items


def _truth(case: Case):
    k = case.known
    t = sc.frame_times(case)
    poses = _poses(k, t, "true")
    slides = [v * v / (2 * k["mu"] * k["g"] * k["px_per_m"]) for v in _block_speeds(k)]
    q = {f"slide_{b}": s for b, s in zip(BLOCKS, slides)}
    far = int(np.argmax(slides))
    q.update(F1=slides[far], F2=slides[1 - far])
    a = 2 * rolling_distance(1.0, k["theta"], K_BALL, k["g"]) * k["px_per_m"]
    ev = {}
    for i, p in enumerate(_ball_paths(k)):
        v = math.sqrt(2 * a * float(p.cum[1]))
        ev[f"{BLOCKS[i]}.collision"] = v / a + k["floor_gap_px"] / v
    return sc.truth(t, {o: (p[:, 0], p[:, 1]) for o, p in poses.items()}, ev, q)
