// A named import: the bundler keeps only this member of the manifest.
import { version } from '../package.json';

/**
 * The proxy's version, announced upstream as its MCP client version and printed by `--version`:
 * the package's own, read from its manifest at build time so that there is one copy of it.
 */
export const PROXY_VERSION: string = version;
