/**
 * `@s2sp/server/a2s`: A2S (Agent-to-Service) capability documents for S2SP pipelines: builders for the steps, a
 * canonical checksum with its verifier, a small YAML writer, and the `/.well-known/a2s` routes.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { canonicalJson } from './canonical-json.js';
export { capabilityChecksum, sealCapability, verifyCapability } from './checksum.js';
export { mountA2S } from './routes.js';
export {
  A2S_VERSION,
  type A2SCapability,
  A2SCapabilitySchema,
  A2SStepSchema,
} from './schemas.js';
export { a2sVariable, dataPlaneStep, mcpToolStep } from './steps.js';
export { toYaml } from './yaml.js';
