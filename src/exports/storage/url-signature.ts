import { createHmac, timingSafeEqual } from 'node:crypto';
import { forbidden } from '../../errors/api-error.ts';

export interface SignedParams {
  key: string;
  filename: string;
  /** Unix seconds. */
  expires: number;
}

const SIGNATURE = /^[0-9a-f]{64}$/;
const EXPIRES = /^[0-9]{1,12}$/;

/**
 * HMAC-SHA256 over key, expiry and file name: the credential of a filesystem download URL. The
 * secret lives in the data directory, so every instance sharing it accepts the others' URLs.
 */
export class UrlSigner {
  constructor(
    private readonly secret: string,
    private readonly now: () => number,
  ) {}

  /** The query string (expires, filename, signature) of a URL granting `key` for `ttlSeconds` from now. */
  sign(key: string, filename: string, ttlSeconds: number): { query: URLSearchParams; expiresAt: Date } {
    const expires = Math.floor(this.now() / 1000) + ttlSeconds;
    const signature = this.mac({ key, filename, expires });
    return { query: new URLSearchParams({ expires: String(expires), filename, signature }), expiresAt: new Date(expires * 1000) };
  }

  private mac({ key, filename, expires }: SignedParams): string {
    // Newline-separated: none of the three can contain one (names.ts), so the message is unambiguous.
    return createHmac('sha256', this.secret).update(`export-url-v1\n${key}\n${expires}\n${filename}`).digest('hex');
  }

  /** Checks a URL's query against its key: 403 INVALID_SIGNATURE when altered, 403 SIGNED_URL_EXPIRED when too late. */
  verify(key: string, query: URLSearchParams): SignedParams {
    const expires = query.get('expires') ?? '';
    const filename = query.get('filename') ?? '';
    const signature = query.get('signature') ?? '';
    if (!SIGNATURE.test(signature) || !EXPIRES.test(expires)) throw invalidSignature();
    const params = { key, filename, expires: Number(expires) };
    if (!timingSafeEqual(Buffer.from(this.mac(params), 'hex'), Buffer.from(signature, 'hex'))) throw invalidSignature();
    if (this.now() > params.expires * 1000) {
      throw forbidden(
        'SIGNED_URL_EXPIRED',
        `The download link expired at ${new Date(params.expires * 1000).toISOString()}. Request a new link from the export job.`,
      );
    }
    return params;
  }
}

export const invalidSignature = () =>
  forbidden('INVALID_SIGNATURE', 'The download link is not valid: its signature does not match. Request a new link from the export job.');
