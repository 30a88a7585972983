import type { z } from 'zod';

/**
 * A tool's own parameters as S2SP takes them: a zod shape (`{ area: z.string() }`), or — as SDK v2
 * writes input schemas — a zod object (`z.object({ area: z.string() })`), whose shape is used.
 */
export type ToolParameters<TShape extends z.ZodRawShape> = TShape | z.ZodObject<TShape>;

/**
 * The shape of a tool's own parameters, whichever way they were written (see
 * {@link ToolParameters}); `{}` for none. A zod object is told from a shape by zod's own
 * internals marker, which a shape (a record of schemas) never has at its top.
 */
export function shapeOf<TShape extends z.ZodRawShape>(
  parameters: ToolParameters<TShape> | undefined,
): TShape {
  if (parameters === undefined) return {} as TShape;
  return '_zod' in parameters ? (parameters as z.ZodObject<TShape>).shape : (parameters as TShape);
}
