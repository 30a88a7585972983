import { z } from 'zod';

/**
 * Makes every optional parameter of a tool also accept `null`, read as absent (its default, if
 * any). Why: OpenAI's strict function schemas make every property required and send `null` for
 * the ones the model leaves out, and other clients do the same; an optional S2SP parameter must
 * not turn that into a validation error. The JSON Schema then says `anyOf: [<type>, null]`, so
 * clients that validate arguments against it accept the `null` too.
 *
 * Required parameters and those that already accept `null` are left as they are.
 */
export function nullAsAbsent(shape: z.ZodRawShape): z.ZodRawShape {
  return Object.fromEntries(
    Object.entries(shape).map(([key, schema]) => [key, nullAsAbsentField(schema as z.ZodType)]),
  );
}

function nullAsAbsentField(schema: z.ZodType): z.ZodType {
  if (!schema.safeParse(undefined).success || schema.safeParse(null).success) return schema;
  // `null` becomes what the schema makes of an absent value, so a `.default()` still applies.
  return z.union([schema, z.null().transform(() => schema.parse(undefined))]);
}
