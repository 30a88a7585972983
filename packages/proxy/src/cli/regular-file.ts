/**
 * Reading a file an operator names on the command line (`--config`, `--state`): regular files
 * only, and never more than a cap. A wrong path (a FIFO, `/dev/zero`, a directory, a device) is
 * refused at once rather than read: opening a FIFO waits for a writer, so a start-up could hang
 * forever (SIGTERM with it), and a device can give gigabytes. The one guard of both options.
 *
 * @module
 */

import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';

/** What {@link readRegularFile} found at a path. */
export type RegularFileRead =
  /** Nothing is there. */
  | { readonly kind: 'missing' }
  /** Something is there that is not a regular file: `what` says what (`a FIFO`). */
  | { readonly kind: 'not-regular'; readonly what: string }
  /** A regular file larger than the cap: not read beyond it. */
  | { readonly kind: 'too-large' }
  /** A regular file within the cap, and its bytes. */
  | { readonly kind: 'file'; readonly bytes: Buffer };

/** What the kind of a file that is not a regular one is called in an error. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}

/**
 * The bytes of the regular file at `path` (a link to one is followed), at most `maxBytes`. Looked
 * at before it is opened, and opened without waiting (`O_NONBLOCK`) and checked again, so that
 * nothing but a regular file is ever read, even if the path is replaced in between.
 *
 * @param path - the path as given
 * @param maxBytes - the most bytes the caller takes
 * @throws the system's error when the path is there but cannot be looked at or opened (`EACCES`)
 */
export function readRegularFile(path: string, maxBytes: number): RegularFileRead {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  if (!stats.isFile()) return { kind: 'not-regular', what: kindOf(stats) };
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return { kind: 'not-regular', what: kindOf(opened) };
    // One byte more than the cap says the file is larger, without reading it whole.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) return { kind: 'too-large' };
    return { kind: 'file', bytes: buffer.subarray(0, length) };
  } finally {
    closeSync(fd);
  }
}
