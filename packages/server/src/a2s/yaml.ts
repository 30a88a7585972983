import { isPlainObject } from '@s2sp/core/json';
import { canonicalJson } from './canonical-json.js';

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
// Words YAML 1.1 readers would turn into booleans or null if left unquoted.
const RESERVED = /^(y|n|yes|no|on|off|true|false|null|~)$/i;

function yamlKey(key: string): string {
  return PLAIN_KEY.test(key) && !RESERVED.test(key) ? key : JSON.stringify(key);
}

/**
 * Writes JSON-compatible data as block-style YAML. Every string is written as a JSON (double-
 * quoted) scalar, which YAML 1.2 reads back exactly, so no value can change type or meaning.
 */
export function toYaml(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return value
      .map((item) => {
        const rendered = toYaml(item, indent + 2);
        const nested =
          (isPlainObject(item) && Object.keys(item).length > 0) ||
          (Array.isArray(item) && item.length > 0);
        // A nested block starts on the dash's line: "- id: x", its other lines indented under it.
        return nested ? `${pad}- ${rendered.slice(indent + 2)}` : `${pad}- ${rendered}`;
      })
      .join('\n');
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined);
    if (keys.length === 0) return '{}';
    return keys
      .map((key) => {
        const item = value[key];
        const nested =
          (isPlainObject(item) && Object.keys(item).length > 0) ||
          (Array.isArray(item) && item.length > 0);
        return nested
          ? `${pad}${yamlKey(key)}:\n${toYaml(item, indent + 2)}`
          : `${pad}${yamlKey(key)}: ${toYaml(item, indent + 2)}`;
      })
      .join('\n');
  }
  return canonicalJson(value);
}
