// @mastra/mcp 0.14.5, the lowest version @s2sp/client claims.
export * from '@mastra/mcp';
