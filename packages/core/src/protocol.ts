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
