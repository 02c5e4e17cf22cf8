"""A real MCP client for the integration tests: connects to Engram's /mcp over Streamable HTTP
with a bot's token or a person's API token (the URL then names the agent), lists the tools, and
makes the calls given as JSON: each a memory_self_edit's arguments, or {"tool": name, "arguments":
{...}} for another tool.
Prints one JSON object: the tools (name, description, input schema, annotations) and each call's
result, or the MCP error it raised (code, message, data)."""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


async def main(url: str, token: str, calls: list) -> dict:
    headers = {"Authorization": f"Bearer {token}"}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                out = {
                    "tools": [
                        {
                            "name": t.name,
                            "description": t.description,
                            "input_schema": t.input_schema,
                            "annotations": t.annotations.model_dump(by_alias=True, exclude_none=True)
                            if t.annotations
                            else None,
                        }
                        for t in tools.tools
                    ],
                    "calls": [],
                }
                for args in calls:
                    try:
                        if "tool" in args:
                            r = await session.call_tool(args["tool"], args.get("arguments", {}))
                        else:
                            r = await session.call_tool("memory_self_edit", args)
                    except MCPError as e:
                        out["calls"].append({"error": {"code": e.code, "message": e.message, "data": e.data}})
                        continue
                    out["calls"].append(
                        {
                            "is_error": bool(r.is_error),
                            "text": [c.text for c in r.content if getattr(c, "type", "") == "text"],
                        }
                    )
                return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))))
