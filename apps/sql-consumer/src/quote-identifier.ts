/**
 * A SQL identifier, double-quoted with inner quotes doubled, so that any column name a resource
 * server sends (spaces, quotes, keywords) names exactly that column and nothing else.
 *
 * @param name - the identifier as it is, at most a few hundred characters (checked by the caller)
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
