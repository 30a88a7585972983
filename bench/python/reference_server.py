"""The Python reference's data plane (mcp-sd/python-sdk, src/mcp_sd/direct_channel.py), driven by
the benchmark: `python3 reference_server.py <path to direct_channel.py>`.

It serves the reference's own `DirectChannel` app (Starlette on uvicorn) on a free loopback
port, and reads one JSON command a line on stdin, answering one JSON line on stdout:
  {"op": "prepare", "file": <JSON array of rows with _row_id>}   -> {"ok": true, "rows": n}
  {"op": "mint", "count": n}  -> {"ok": true, "value": [tokens]}  (cache entries as server.py makes)
  {"op": "reset"}             -> {"ok": true}
  {"op": "fetch", "url": u, "row_ids": [...], "columns": [...]}
                              -> {"ok": true, "value": rows}  (the reference's consumer client,
                                 DirectChannel.fetch_data, redeeming a resource_url of ours)
The first line written is {"port": n}. Nothing of the reference is copied here: its file is
loaded from where the benchmark was told it is (it is not part of this repository).
"""

import asyncio
import importlib.util
import json
import logging
import os
import secrets
import sys
import time

logging.disable(logging.INFO)
FRESH_ROWS = os.environ.get("S2SP_PY_FRESH_ROWS") == "1"


def load_channel(path):
    spec = importlib.util.spec_from_file_location("direct_channel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.DirectChannel


async def main():
    DirectChannel = load_channel(sys.argv[1])
    channel = DirectChannel(port=0, host="127.0.0.1")
    cache = {}
    # What S2SPServer does: the channel serves the server's shared cache.
    channel._data_cache = cache
    await channel.start()
    if not channel._actual_port:
        raise SystemExit("the reference's data plane did not start")
    out = sys.stdout
    out.write(json.dumps({"port": channel.port}) + "\n")
    out.flush()
    rows, text = [], "[]"
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        command = json.loads(line)
        op = command.get("op")
        reply = {"ok": True}
        if op == "prepare":
            with open(command["file"], encoding="utf-8") as f:
                text = f.read()
            rows = json.loads(text)
            reply["rows"] = len(rows)
        elif op == "mint":
            tokens = [secrets.token_urlsafe(32) for _ in range(int(command["count"]))]
            now = time.time()
            # The entry server.py caches for an async-mode call (the fields the data plane reads).
            # By default every token shares one list of rows: the reference's best case, as the
            # issue measured it. In real use each call caches rows of its own (parsed from its
            # upstream's answer), which the data plane's `del` frees inside the request;
            # S2SP_PY_FRESH_ROWS=1 does that: each token's rows are parsed anew from the table's
            # JSON, so no row, key or value is shared between calls.
            for token in tokens:
                data = json.loads(text) if FRESH_ROWS else rows
                cache[token] = {"data": data, "timestamp": now}
            reply["value"] = tokens
        elif op == "fetch":
            try:
                reply["value"] = await DirectChannel.fetch_data(
                    command["url"], row_ids=command.get("row_ids"), columns=command.get("columns")
                )
            except Exception as error:  # reported to the benchmark, which fails the check
                reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        elif op == "reset":
            cache.clear()
            rows, text = [], "[]"
        else:
            reply = {"ok": False, "error": f"unknown op {op}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    await channel.stop()


asyncio.run(main())
