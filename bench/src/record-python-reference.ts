/**
 * Writes bench/fixtures/python-reference/control-plane.json: the Python reference's own answers
 * to every call section 1 compares with it, so the token rows can be counted where Python and the
 * reference are not (CI). Run from the repository's root, with the reference extracted where
 * `S2SP_PY_REFERENCE` says (default /tmp/mcp-sd-python-sdk) and its commit in
 * `S2SP_PY_REFERENCE_COMMIT` (`git get-tar-commit-id` on the archive it was extracted from):
 *
 *   pnpm --filter @s2sp/bench build && pnpm --filter @s2sp/bench record:python-reference
 *
 * scripts/python-reference-recording.test.ts checks the file is what this writes.
 */
import { writeFileSync } from 'node:fs';
import {
  pythonReferenceMissing,
  REFERENCE_RECORDING_FILE,
  recordReferenceControlPlane,
} from './python-reference.js';
import { referenceCalls } from './token-inputs.js';

const missing = pythonReferenceMissing('control plane');
if (missing) throw new Error(`cannot record the Python reference: ${missing}`);
const commit = process.env.S2SP_PY_REFERENCE_COMMIT ?? '';
if (!/^[0-9a-f]{40}$/.test(commit))
  throw new Error(
    'set S2SP_PY_REFERENCE_COMMIT to the 40-hex commit the reference was extracted from',
  );
const recording = recordReferenceControlPlane(referenceCalls(), commit);
writeFileSync(REFERENCE_RECORDING_FILE, `${JSON.stringify(recording, null, 2)}\n`);
console.log(`${recording.calls.length} answers written to ${REFERENCE_RECORDING_FILE}`);
