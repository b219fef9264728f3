"""An MCP server in 20 lines (slides 003): a typed, documented function becomes a tool; the core serves it on stdio.

Launch it from a host, e.g. Claude Code:  claude mcp add papers -- python3 /path/to/scripts/mcp_server_in_20_lines.py
Uses only MCP part I (interfaces.MCPCoreServer, serve_lines) over the offline arXiv of interfaces section 5a.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from interfaces import MCPCoreServer, PaperStore, serve_lines  # noqa: E402
from tool_core import ToolRegistry  # noqa: E402

papers, tools = PaperStore(), ToolRegistry()


@tools.tool(read_only=True)
def search_papers(query: str, max_results: int = 5) -> str:
    """Search the offline arXiv: papers whose title or abstract has every word of the query, newest first.

    Args:
        query: two or three keywords, e.g. 'constrained decoding'
        max_results: how many papers to list, 1 to 20
    """
    return papers.listing(query, max(1, min(max_results, 20)))


if __name__ == "__main__":
    serve_lines(MCPCoreServer(tools, info={"name": "papers", "version": "1.0.0"}))
