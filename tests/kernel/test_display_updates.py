"""The live summary in a real kernel: update_display_data messages on iopub, in order."""

from __future__ import annotations

import re

from jupyter_client.manager import start_new_kernel

from nbcompile.core.records import MIME_TYPE
from tests.support.kernel import execute


def test_summary_updates_while_compiling_and_after():
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        execute(kc, "%load_ext nbcompile")
        cell = "def chain(x):\n    return (torch.sin(x) * torch.cos(x)).relu() + 1\n"
        defined = execute(kc, "%%compile\nimport torch\n" + cell)
        [shown] = [m for m in defined if m["msg_type"] == "display_data"]
        display_id = shown["content"]["transient"]["display_id"]
        assert shown["content"]["data"][MIME_TYPE]["targets"][0]["status"] == "pending"

        called = execute(kc, "chain(torch.randn(1000))")
        updates = [m["content"] for m in called if m["msg_type"] == "update_display_data"]
        assert updates and all(u["transient"]["display_id"] == display_id for u in updates)
        statuses = [u["data"][MIME_TYPE]["targets"][0]["status"] for u in updates]
        assert statuses[0] == "compiling"
        assert "compiling" in updates[0]["data"]["text/plain"]
        assert statuses[-1] == "compiled"
        final = updates[-1]["data"][MIME_TYPE]["targets"][0]
        assert final["graph_count"] == 1
        # The wrapper ("call") is listed too; the fused chain is one generated C++ kernel.
        real = [k["name"] for k in final["kernels"] if k["kind"] == "kernel"]
        assert len(real) == 1 and real[0].startswith("cpp_fused_"), final["kernels"]
        assert all(op in real[0] for op in ("sin", "cos", "relu")), real
        assert re.search(r"\b1 kernel\b", updates[-1]["data"]["text/plain"])
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
