import { z } from 'zod';
import { EdgeOptionsSchema } from './edge/edge-options.js';
import { S2SPOptionsSchema } from './runtime/options.js';
import type { S2SPServerOptions } from './server-types.js';

/**
 * The options of `createS2SPServer`: the HTTP edge's, the runtime's (which win where both
 * have one, with the same rule) and the MCP server's identity. The options table of
 * `@s2sp/server`'s README is checked against it.
 */
export const S2SPServerOptionsSchema = z.object({
  name: z.string().min(1).describe('The MCP server name.'),
  version: z.string().min(1).describe('The MCP server version.'),
  instructions: z
    .string()
    .optional()
    .describe(
      'MCP `instructions`; with `toolGuidance: "instructions"` the S2SP how-to is appended.',
    ),
  mcpPath: z
    .string()
    .startsWith('/')
    .default('/mcp')
    .describe('Path of the Streamable HTTP endpoint.'),
  ...EdgeOptionsSchema.shape,
  ...S2SPOptionsSchema.shape,
} satisfies Record<keyof S2SPServerOptions, z.ZodType>);
