"""Scenes of light and projection: a rod with four markers sliding down a wall, seen through a fixed
perspective (WMLE P16)."""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

from lawful.world import optics
from lawful.world.appearance import Style
from lawful.world.draw import Scene, Sphere

ROD_WIDTH = 7.0
MARKERS = ("marker_1", "marker_2", "marker_3", "marker_4")


def marker_drift(s, factor: float) -> float:
    """How far the third marker must creep (share of the rod) for χ to change by ``factor``:
    ``χ = A (s3 − s1) / (s3 − s2)`` with ``A = (s4 − s2) / (s4 − s1)`` solved for ``s3``."""
    s1, s2, s3, s4 = s
    A = (s4 - s2) / (s4 - s1)
    chi = factor * optics.cross_ratio(s)
    return (chi * s2 - A * s1) / (chi - A) - s3


def rod_pose(k: dict, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rod ends (plane px) ``[T, 2]`` each: top on the wall, foot on the floor."""
    u = np.clip((np.asarray(t, float) - k["hold_s"]) / k["slide_s"], 0, 1)
    u = u * u * (3 - 2 * u)
    phi = np.radians(k["phi0_deg"] + (k["phi1_deg"] - k["phi0_deg"]) * u)
    L, wx, fy = k["rod_px"], k["wall_x"], k["floor_y"]
    top = np.stack([np.full_like(phi, wx), fy - L * np.sin(phi)], 1)
    foot = np.stack([wx + L * np.cos(phi), np.full_like(phi, fy)], 1)
    return top, foot


def marker_fractions(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """Markers' places along the rod (shares of its length) ``[T, 4]``; the twin's ``anti_marker`` creeps."""
    s = np.tile(np.asarray(k["marker_s"], float), (len(t), 1))
    if law == "anti":
        u = np.clip((np.asarray(t, float) - k["hold_s"]) / k["slide_s"], 0, 1)
        s[:, k["anti_marker"] - 1] += k["anti_drift"] * u
    return s


def rod_markers(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """Marker centres in image px ``[T, 4, 2]``."""
    top, foot = rod_pose(k, t)
    s = marker_fractions(k, t, law)
    plane = top[:, None, :] + s[..., None] * (foot - top)[:, None, :]
    H = np.asarray(k["homography"])
    return optics.apply_homography(H, plane.reshape(-1, 2)).reshape(plane.shape)


def sliding_rod_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                       law: str) -> Iterator[np.ndarray]:
    """Wall, floor and the marked rod sliding down, drawn on the plane and warped by ``k["homography"]``."""
    scene = Scene(width, height, style).ground(k["floor_y"])
    scene.platform(-10, -10, k["wall_x"], k["floor_y"])
    H = np.asarray(k["homography"])
    t = times
    top, foot = rod_pose(k, t)
    s = marker_fractions(k, t, law)
    style = scene.style
    wood = tuple(int(0.55 * c) for c in style.ramp_color)
    for i in range(len(t)):
        img = scene.static_layer.copy()
        d = (foot[i] - top[i]) / np.linalg.norm(foot[i] - top[i])
        n = np.array([-d[1], d[0]]) * ROD_WIDTH / 2
        optics.fill_polygon(img, [top[i] + n, foot[i] + n, foot[i] - n, top[i] - n], wood)
        for j in range(4):
            p = top[i] + s[i, j] * (foot[i] - top[i])
            Sphere(float(p[0]), float(p[1]), k["radius_px"], tuple(k["colors"][j])).draw(img, style)
        yield cv2.warpPerspective(img, H, (width, height), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
