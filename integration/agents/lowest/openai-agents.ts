// @openai/agents 0.14.3, the lowest version @s2sp/client claims.
export * from '@openai/agents';
