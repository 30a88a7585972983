"""The Python reference's control plane (mcp-sd/python-sdk, src/mcp_sd/server.py), driven by the
benchmark: `python3 reference_control_plane.py <path to the reference's src folder> <port>`.

It registers one resource tool with the reference's own `S2SPServer.sd_resource_tool()` decorator
and calls the wrapper that decorator builds: the string it returns is the tool result's text (the
MCP SDK's FastMCP sends a `str` result as one text block unchanged), so every byte of the text the
model reads is written by the reference's code, not by this script. Its data plane is not started:
the `resource_url` only names `http://127.0.0.1:<port>`, as a started one would.

stdin: one JSON object {"calls": [{"rows": [...], "abstract_domains": "a,b" | null}, ...]}.
stdout: one JSON object {"tool": {...}, "texts": [...], "shim": bool, "python": "3.x.y"}, a text
per call in order, and the tool's name, description and parameters as the reference registered it.

SHIM, and only a shim: the reference imports `FastMCP` from the `mcp` Python SDK, which PyPI would
give and Debian does not package (Debian 12's pydantic is 1.x; `mcp` needs 2.x). When `mcp` cannot be
imported, a stand-in module `mcp.server.fastmcp` is installed whose `FastMCP` only records what
`add_tool` is given. It writes no text: the reference builds the result and the description itself.
Nothing of the reference is copied here; its files are loaded from where the benchmark was told.
"""

import asyncio
import inspect
import json
import logging
import platform
import sys
import types

logging.disable(logging.INFO)


def install_fastmcp_shim():
    """SHIM for the missing `mcp` package: a FastMCP that records its tools, nothing more."""

    class FastMCP:  # stand-in, see the module docstring
        def __init__(self, name, lifespan=None, **_):
            self.name = name
            self.tools = {}

        def add_tool(self, fn, name=None, description=None, **_):
            self.tools[name or fn.__name__] = {"fn": fn, "description": description}

    fastmcp = types.ModuleType("mcp.server.fastmcp")
    fastmcp.FastMCP = FastMCP
    for name, module in (
        ("mcp", types.ModuleType("mcp")),
        ("mcp.server", types.ModuleType("mcp.server")),
        ("mcp.server.fastmcp", fastmcp),
    ):
        sys.modules[name] = module
    sys.modules["mcp"].server = sys.modules["mcp.server"]
    sys.modules["mcp.server"].fastmcp = fastmcp


def main():
    source, port = sys.argv[1], int(sys.argv[2])
    sys.path.insert(0, source)
    try:
        import mcp.server.fastmcp  # noqa: F401  (the real SDK, when it is installed)

        shim = False
    except ImportError:
        install_fastmcp_shim()
        shim = True
    from mcp_sd.server import S2SPServer

    request = json.load(sys.stdin)
    server = S2SPServer("nws", s2sp_port=port)
    current = {"rows": []}

    @server.sd_resource_tool()
    async def get_alerts() -> list[dict]:
        """Active NWS alerts."""
        return current["rows"]

    # The wrapper and description the reference hands to FastMCP.add_tool.
    if shim:
        registered = server.mcp.tools["get_alerts"]
        wrapper, description = registered["fn"], registered["description"]
    else:
        tool = server.mcp._tool_manager.get_tool("get_alerts")
        wrapper, description = tool.fn, tool.description

    async def run():
        texts = []
        for call in request["calls"]:
            current["rows"] = call["rows"]
            domains = call.get("abstract_domains")
            texts.append(await (wrapper(abstract_domains=domains) if domains else wrapper()))
        return texts

    texts = asyncio.run(run())
    parameters = [
        {"name": p.name, "default": None if p.default is inspect.Parameter.empty else p.default}
        for p in inspect.signature(wrapper).parameters.values()
    ]
    json.dump(
        {
            "tool": {"name": "get_alerts", "description": description, "parameters": parameters},
            "texts": texts,
            "shim": shim,
            "python": platform.python_version(),
        },
        sys.stdout,
    )


main()
