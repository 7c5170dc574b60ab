"""A ``CompileTime`` as text, HTML and a bundle: the remedies with their code and numbers,
within the output budget however many frames and notes it holds."""

from __future__ import annotations

from nbcompile.core.compiletime.record import (
    CacheOutcome,
    CompileTime,
    FrameTime,
    KeyChange,
    Remedy,
    RepeatedBlock,
    Where,
)
from nbcompile.core.records import MIME_TYPE
from nbcompile.display.budget import bundle_size, output_budget
from nbcompile.display.compile_time import compile_time_bundle, compile_time_text


def _record(frames: int = 1) -> CompileTime:
    change = KeyChange("fx_graph", "inductor_config[epilogue_fusion]", "inductor_option",
                       "Inductor option epilogue_fusion: True -> False", "True", "False")
    where = Where(
        total_s=12.0, phases={"Dynamo tracing": 2.0, "code generation": 8.0},
        frames=[FrameTime(f"0/{i}", "forward", "<ipython-input-3-x>", 4, 3.0,
                          caches=[CacheOutcome("fx_graph", "miss", "full_miss")],
                          key_changes=[change], cache_note="x" * 5000)
                for i in range(frames)],
        repeated=[RepeatedBlock("blocks", "Block", 8, 8, 0.9, 1.8, 7.2)],
        caches={"fx_graph miss": frames})
    return CompileTime(
        name="Net", cold_s=12.5, warm_restart_s=3.1, where=where, remedies=[
            Remedy("regional", "for block in model.blocks:\n    block.compile()",
                   "verified", True, cold_s=4.0, restart_s=1.0, steady_ratio=1.02,
                   same_result=True, note="cold first call 4.00 s vs 12.50 s"),
            Remedy("dynamic", "", "does not apply", note="no recompiles in the cold run")],
        notes=["n" * 3000] * 50)


def test_text_names_each_remedy_with_its_numbers_and_the_repeated_blocks():
    text = compile_time_text(_record())
    assert text.startswith("compile time of Net: cold 12.5")
    assert "verified: regional" in text.splitlines()[0]
    assert "8 x Block in blocks, traced 8 times" in text
    assert "- regional: verified (cold 4 s, restart 1 s, steady 1.02x, outputs same)" in text
    assert "- dynamic: does not apply" in text


def test_the_bundle_stays_within_the_output_budget():
    bundle = compile_time_bundle(_record(frames=2000))
    assert bundle_size(bundle) <= output_budget()
    record = bundle[MIME_TYPE]
    assert record["record"] == "compile_time" and record["truncated"]
    assert [r["kind"] for r in record["remedies"]] == ["regional", "dynamic"]
    assert "for block in model.blocks:" in bundle["text/html"]


def test_a_frame_compiled_in_an_earlier_kernel_is_shown_with_what_differed():
    from nbcompile.core.compiletime.record import EarlierCompile
    from nbcompile.display.compile_time import compile_time_html

    note = ("compiled in an earlier kernel of this notebook (saved 2026-11-26 10:00:00 UTC): "
            "Inductor option max_autotune: False -> True; FX graph cache missed: ...")
    change = KeyChange("fx_graph", "inductor_config[max_autotune]", "inductor_option",
                       "Inductor option max_autotune: False -> True", "False", "True")
    ct = _record()
    ct.kernel_compiles = [FrameTime("0/0", "f", "<ipython-input-2-ab>", 1, 1.0,
                                    key_changes=[change], cache_note=note,
                                    earlier=EarlierCompile("2026-11-26T10:00:00+00:00", "0/0",
                                                           same_key=False, words=note[:80]))]
    assert ("in this kernel, f, its first compile (torch's compile id 0/0): compiled in an "
            "earlier kernel") in compile_time_text(ct)
    assert "max_autotune: False -&gt; True" in compile_time_html(ct)
    bundle = compile_time_bundle(ct)
    assert bundle[MIME_TYPE]["kernel_compiles"][0]["earlier"]["same_key"] is False
    ct.kernel_compiles *= 500
    assert bundle_size(compile_time_bundle(ct)) <= output_budget()


def test_frame_compiles_are_named_in_words_not_bare_compile_ids():
    from nbcompile.display.compile_time import compile_time_html

    ct = _record(frames=2)
    text, html = compile_time_text(ct), compile_time_html(ct).replace("&#x27;", "'")
    for shown in (text, html):
        assert "forward, its first compile (torch's compile id 0/0): xxx" in shown
        assert "forward, recompile 1 (torch's compile id 0/1): xxx" in shown
    assert "  0/0 forward:" not in text


def test_an_inconclusive_remedy_says_what_a_verdict_needs():
    from nbcompile.core.compiletime.rounds import judge_rounds
    from nbcompile.display.compile_time import compile_time_html

    verdict = judge_rounds([5.0, 5.2, 4.9], [4.2, 5.6, 4.4], stopped="rounds=3 reached")
    ct = _record()
    ct.remedies[0] = Remedy("regional", "for block in model.blocks:\n    block.compile()",
                            verdict.status, cold_s=4.4, rounds_before_s=[5.0, 5.2, 4.9],
                            rounds_after_s=[4.2, 5.6, 4.4], cut=verdict.cut,
                            cut_low=verdict.cut_low, cut_high=verdict.cut_high,
                            note=verdict.words)
    text = compile_time_text(ct)
    assert "inconclusive: regional" in text.splitlines()[0]
    assert "verified:" not in text.splitlines()[0]
    line = next(x for x in text.splitlines() if x.startswith("- regional:"))
    assert line.startswith("- regional: inconclusive (cold 4.4 s")
    assert "not verified: 10% less" in line and "within the spread measured" in line
    assert "did not help" not in line
    html = compile_time_html(ct)
    assert ">inconclusive</td>" in html and "5.00 / 4.20" in html
    record = compile_time_bundle(ct)[MIME_TYPE]
    assert record["remedies"][0]["rounds_after_s"] == [4.2, 5.6, 4.4]


def test_the_published_record_is_cut_to_exactly_what_fits():
    """The size kept while cutting frames is the record's real size: within the budget,
    and one more frame would not have fitted."""
    import json

    from nbcompile.display.budget import json_size
    from nbcompile.display.compile_time import published_compile_time

    ct = _record(frames=300)
    whole = json_size(ct.to_dict())
    budget = whole // 20  # below what capping the texts alone reaches
    data = published_compile_time(ct, budget)
    assert json_size(data) <= budget and data["truncated"]
    assert 0 < len(data["where"]["frames"]) < 300
    bigger = published_compile_time(ct, json_size(data) + 1)
    assert json.dumps(bigger) == json.dumps(data)  # the same cut: nothing more fitted
