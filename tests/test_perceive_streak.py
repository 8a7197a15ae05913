"""Blur length of a streak measured against the object's own shape (an elongated block is not a blur)."""

import math

import cv2
import numpy as np

from lawful.perceive.objects import moments2, streak_length

TH = math.radians(30.0)
U = np.array([math.cos(TH), -math.sin(TH)])  # up a 30-degree slope (image y down)
N = np.array([-math.sin(TH), -math.cos(TH)])  # out of the slope


def block_mask(h, w, centre, length, height, smear=0.0, sub=16):
    """Coverage (0-1) of a ``length`` x ``height`` block along ``U`` centred at ``centre``, swept ``smear`` px
    along ``U`` while the shutter is open (``sub`` instants, 4x4 supersampled edges)."""
    ss = 4
    yy, xx = np.mgrid[0:h * ss, 0:w * ss]
    pts = np.stack([(xx + 0.5) / ss - 0.5, (yy + 0.5) / ss - 0.5], -1)
    acc = np.zeros((h * ss, w * ss), np.float32)
    for k in range(sub):
        c = np.asarray(centre) + (k / (sub - 1) - 0.5) * smear * U if smear else np.asarray(centre)
        rel = pts - c
        acc += (np.abs(rel @ U) <= length / 2) & (np.abs(rel @ N) <= height / 2)
        if not smear:
            break
    cov = acc / (sub if smear else 1)
    return cv2.resize(cov, (w, h), interpolation=cv2.INTER_AREA)


def test_an_elongated_block_moving_along_its_length_shows_no_blur_against_its_own_shape():
    """A 40 x 16 block moving along its long axis: taken as round, its own length reads as a 36 px
    streak; against its own (still) second moments it reads under 1 px, and under 3 px at 1.25x the
    scale (the across-motion spread rescales the own shape; pixel edges are the rest). Its swept mask
    reads the swept length within 3 px."""
    still = (block_mask(160, 200, (100, 80), 40, 16) > 0.5).view(np.uint8)
    own = moments2(still)
    vel = tuple(20 * U)
    as_disc = streak_length(still, vel)
    assert abs(as_disc - math.sqrt(40 ** 2 - 16 ** 2)) < 2.0  # the round-object reading: the block's own length
    assert streak_length(still, vel, own) < 1.0
    bigger = (block_mask(160, 200, (100, 80), 50, 20) > 0.5).view(np.uint8)
    assert streak_length(bigger, vel, own) < 3.0
    smeared = (block_mask(160, 200, (100, 80), 40, 16, smear=24) > 0.02).view(np.uint8)
    # the mask of a smeared box is a box 40 + 24 long: variance (64^2 - 40^2)/12 more than the block's
    # (its faint edge pixels also widen it across, which the scaling turns into ~2 px less)
    assert abs(streak_length(smeared, vel, own) - math.sqrt(64 ** 2 - 40 ** 2)) < 3.0
    # across its own length (moving sideways) the block is thin: no blur there either
    side = tuple(10 * N)
    assert streak_length(still, side, own) < 1.0

