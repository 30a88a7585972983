// @langchain/mcp-adapters 1.0.0, the lowest version @s2sp/client claims.
export * from '@langchain/mcp-adapters';
