/**
 * X-Service-Proof-Hash: SHA-256 (lower-case hex) of the `value` array of the result document, exactly
 * the rows returned in their order, serialised with the JSON Canonicalization Scheme (RFC 8785:
 * object keys sorted, no whitespace, numbers in their shortest round-trip form), so the hash does not
 * depend on key order or formatting. `lcf odata verify-proof FILE` recomputes it from a saved response.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import canonicalize from 'canonicalize';

export const PROOF_HEADER = 'X-Service-Proof';
export const PROOF_HASH_HEADER = 'X-Service-Proof-Hash';
export const FRESHNESS_HEADER = 'X-Service-Data-Freshness';

export function proofHash(rows: readonly unknown[]): string {
  // Exactly the bytes of canonicalize(rows), fed row by row: one megabyte-sized string less per page.
  const hash = createHash('sha256').update('[');
  rows.forEach((row, i) => hash.update(i === 0 ? canonicalize(row)! : `,${canonicalize(row)}`));
  return hash.update(']').digest('hex');
}

export interface ProofCheck {
  hash: string;
  rows: number;
  /** The hash the saved response claims (its X-Service-Proof-Hash header), when it has headers. */
  claimed?: string;
  proof?: string;
  matches?: boolean;
}

/**
 * Checks a saved response: the JSON body alone, or the whole HTTP response with its headers
 * (`curl -i`, or `curl -D -`), whose X-Service-Proof-Hash is then compared.
 */
export function checkProof(saved: string, expectedHash?: string): ProofCheck {
  const text = saved.replace(/^\uFEFF/, '');
  let headers = '';
  let body = text;
  if (/^HTTP\/\d/.test(text)) {
    // curl -i writes every response of a redirect chain or a 100 Continue; the last one carries the body.
    const blocks = text.split(/\r?\n\r?\n/);
    const bodyStart = blocks.findIndex((block, i) => !/^HTTP\/\d/.test(block) && i > 0);
    headers = blocks.slice(0, bodyStart).at(-1) ?? '';
    body = blocks.slice(bodyStart).join('\n\n');
  }
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    throw new Error('the saved response has no JSON body (save it with curl -o FILE, or curl -i for headers too)');
  }
  const rows = (document as { value?: unknown })?.value;
  if (!Array.isArray(rows)) throw new Error('the JSON body has no "value" array: it is not an OData entity-set response');
  const header = (name: string) => new RegExp(`^${name}:\\s*(\\S+)\\s*$`, 'im').exec(headers)?.[1];
  const claimed = expectedHash ?? header(PROOF_HASH_HEADER);
  const hash = proofHash(rows);
  return {
    hash,
    rows: rows.length,
    claimed,
    proof: header(PROOF_HEADER),
    matches: claimed === undefined ? undefined : claimed.toLowerCase() === hash,
  };
}

export async function verifyProofFile(file: string, expectedHash?: string): Promise<ProofCheck> {
  return checkProof(await readFile(file, 'utf8'), expectedHash);
}
