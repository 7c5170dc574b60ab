"""The one way a text is cut (``core/units.py``)."""

from nbcompile.core.units import clip
from nbcompile.display.text import clip as display_clip


def test_clip_keeps_short_texts_and_marks_a_cut():
    assert clip("abc", 3) == "abc"
    assert clip("abcdef", 3) == "abc\u2026"
    assert clip("abcdef", 3, "...") == "abc..."
    assert clip("one two three", 9, " ...", at_word=True) == "one two ..."
    assert clip("onetwothree", 5, " ...", at_word=True) == "onetw ..."  # no space: cut
    # the renderers' cap is the same rule with their default limit
    assert display_clip("x" * 600) == "x" * 500 + "\u2026"
