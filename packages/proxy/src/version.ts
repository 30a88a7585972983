/** The proxy's version, announced upstream as its MCP client version and printed by `--version`. */
export const PROXY_VERSION = '0.1.0';
