"""Apple-π objective checks on small synthetic images whose answers are known."""

import numpy as np
import pytest

from lawful.suites.applepi import checks as C
from lawful.suites.applepi import ocr
from lawful.suites.applepi.infographic import ORANGE, draw_arrow, formula_answer


def test_white_background_fraction():
    ref = np.full((40, 40, 3), 255, np.uint8)
    gen = ref.copy()
    gen[:, :20] = 200  # the left half is grey
    v = C.white_background(gen, ref)
    # the reference's white area is eroded by 1 px: 38 of the 38x38 interior columns... left 19 grey
    assert v == pytest.approx(19 / 38)
    assert C.white_background(ref, ref) == 1.0
    assert C.white_background(ref, np.zeros_like(ref)) == C.NA  # no white area: not applicable


def test_ink_and_white_masks_follow_their_definitions_per_pixel():
    """ink: min channel < INK_LEVEL or max - min > 60; near-white: every channel >= the level. Checked
    pixel by pixel against the definitions on random colours and on hand-picked edge cases."""
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (31, 29, 3), dtype=np.uint8)
    img[0, :4] = [(199, 255, 255), (200, 255, 255), (255, 255, 199), (250, 250, 250)]
    want_ink = np.array([[min(p) < C.INK_LEVEL or int(max(p)) - int(min(p)) > 60 for p in row] for row in img])
    assert np.array_equal(C.ink(img), want_ink)
    assert C.ink(img)[0, :4].tolist() == [True, False, True, False]
    want_white = np.array([[all(int(c) >= 250 for c in p) for p in row] for row in img])
    assert np.array_equal(C._all_channels(img, 250), want_white)


def test_ink_f1():
    a = np.zeros((30, 30), bool)
    a[10, 5:25] = True
    assert C.ink_f1(a, a, 1.0) == 1.0
    b = np.zeros_like(a)
    b[25, 5:25] = True  # 15 px away
    assert C.ink_f1(b, a, 2.0) == 0.0
    c = a.copy()
    c[20, 5:25] = True  # twice the ink: precision 1/2, recall 1 -> F1 2/3
    assert C.ink_f1(c, a, 2.0) == pytest.approx(2 / 3)
    assert C.ink_f1(np.zeros_like(a), np.zeros_like(a), 1.0) == 1.0


def test_removed_fraction():
    before = np.full((10, 10, 3), 255, np.uint8)
    before[2:8, 2:8] = 0  # an annotation block
    after = np.full((10, 10, 3), 255, np.uint8)
    region = (before == 0).all(-1)
    gen = after.copy()
    gen[2:8, 2:5] = 0  # half of it left over
    assert C.removed_fraction(gen, before, after, region) == pytest.approx(0.5)
    assert C.removed_fraction(after, before, after, region) == 1.0
    assert C.removed_fraction(before, before, after, region) == 0.0
    assert C.removed_fraction(gen, after, after, region) == C.NA  # nothing distinguishable


def _disc_scene(arrow_to):
    img = np.full((80, 120, 3), 255, np.uint8)
    yy, xx = np.mgrid[:80, :120]
    disc = (xx - 40) ** 2 + (yy - 40) ** 2 <= 10**2
    img[disc] = (40, 90, 220)
    if arrow_to is not None:
        draw_arrow(img, (40, 40), arrow_to, ORANGE, 4, 10)
    inst = disc.astype(np.uint8)
    return img, inst, disc


def test_arrow_checks():
    ref, inst, disc = _disc_scene((90, 40))  # arrow to the right
    same = C.arrow_checks(ref, ref, [disc], inst, [1])
    assert same["orange_arrow_present"] == 1.0 and same["arrow_direction"] == 1.0
    assert same["arrow_origin"] == pytest.approx(1.0)
    left, _, _ = _disc_scene((2, 40))
    opp = C.arrow_checks(left, ref, [disc], inst, [1])
    assert opp["orange_arrow_present"] == 1.0 and opp["arrow_direction"] < 0.05
    up, _, _ = _disc_scene((40, 2))
    perp = C.arrow_checks(up, ref, [disc], inst, [1])
    assert perp["arrow_direction"] == pytest.approx(0.5, abs=0.05)  # (1 + cos 90°) / 2
    none, _, _ = _disc_scene(None)
    miss = C.arrow_checks(none, ref, [disc], inst, [1])
    assert miss == {"orange_arrow_present": 0.0, "arrow_origin": 0.0, "arrow_direction": 0.0}
    # an object at rest in the reference: no arrow expected; drawing one is wrong
    assert C.arrow_checks(none, none, [disc], inst, [1])["arrow_direction"] == 1.0
    assert C.arrow_checks(ref, none, [disc], inst, [1])["orange_arrow_present"] == 0.0


def test_text_line_count():
    img = formula_answer("B", "h = 1/2 g t^2", "1.5 = 1/2 * 9.81 * t^2", 320, 192)
    assert C.text_line_count(img) == 3
    assert C.text_line_count(np.full((50, 50, 3), 255, np.uint8)) == 0


class _FakeCase:
    formula_info = {"correct_letter": "C", "correct_formula": "a = g sin(θ)", "choices": {}}
    ext = {"substituted_formula": "a = 9.81 * sin(30°)"}


@pytest.mark.skipif(not ocr.available(), reason="tesseract not installed (optional OCR extra)")
def test_formulation_text_reads_option_letter_with_ocr():
    ref = formula_answer("C", "a = g sin(θ)", "a = 9.81 * sin(30°)", 640, 384)
    good = C.formulation_text(_FakeCase(), ref, ref, use_ocr=True)
    assert good["option_letter_ocr"] == 1.0 and good["formula_text_ocr"] > 0.8
    wrong = C.formulation_text(_FakeCase(), formula_answer("A", "a = g cos(θ)", "a = g cos(θ)", 640, 384), ref,
                               use_ocr=True)
    assert wrong["option_letter_ocr"] == 0.0
    assert C.formulation_text(_FakeCase(), ref, ref, use_ocr=False).keys() == {"white_background", "three_text_lines"}
