import { z } from 'zod';

/** The A2S protocol version these documents follow. */
export const A2S_VERSION = '1.0.0';

export const A2SStepSchema = z.looseObject({
  id: z.string().min(1),
  format: z.enum(['OpenAPI', 'GraphQL', 'AsyncAPI', 'Custom']),
  definition: z.record(z.string(), z.unknown()),
  input_template: z.record(z.string(), z.unknown()).optional(),
  output_mapping: z.record(z.string(), z.string()).optional(),
});

/** An A2S capability document (header plus `execution`). */
export const A2SCapabilitySchema = z.looseObject({
  a2s: z.string(),
  name: z.string().min(1),
  description: z.string(),
  domains: z.array(z.string()),
  version: z.string(),
  checksum: z.string().optional(),
  execution: z.looseObject({ type: z.string(), steps: z.array(A2SStepSchema).min(1) }),
});

/** One execution step. */
export type A2SStep = z.infer<typeof A2SStepSchema>;
/** A capability document; `checksum` is set by {@link sealCapability}. */
export type A2SCapability = z.infer<typeof A2SCapabilitySchema>;
