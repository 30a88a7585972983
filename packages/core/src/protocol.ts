/** Default lifetime of a `resource_url`: 10 minutes (PROTOCOL §3). */
export const DEFAULT_TTL_SECONDS = 600;

/** Reserved names a resource tool adds to its input schema (PROTOCOL §2). */
export const RESOURCE_TOOL_PARAMETERS: readonly string[] = Object.freeze([
  'abstract_domains',
  'mode',
]);

/** Parameter names a consumer tool adds to its input schema (PROTOCOL §4). */
export const CONSUMER_TOOL_PARAMETERS: readonly string[] = Object.freeze([
  'abstract_data',
  'resource_url',
  'body_data',
  'column_mapping',
]);

/**
 * The scheme of sync-mode handles (PROTOCOL §5): agent-local references to body rows held by the
 * agent's S2SP layer. A data plane never serves them; a consumer receives them only when no S2SP
 * layer sat in the agent to swap them for `body_data`.
 */
export const DDI_SCHEME = 'ddi://';

/**
 * The key under which a server declares S2SP in its MCP capabilities
 * (`capabilities.experimental.s2sp`, PROTOCOL §7.7).
 */
export const S2SP_CAPABILITY_KEY = 's2sp';

/** The version of this wire contract a server declares (PROTOCOL §7.7). */
export const S2SP_PROTOCOL_VERSION = '0.2';
