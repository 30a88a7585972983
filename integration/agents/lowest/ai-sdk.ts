// @ai-sdk/mcp 2.0.1, the lowest version @s2sp/client claims.
export * from '@ai-sdk/mcp';
