// @modelcontextprotocol/sdk 1.26.0, the lowest SDK v1 @s2sp/client claims.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
