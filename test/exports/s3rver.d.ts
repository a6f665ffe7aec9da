// s3rver ships no types: the part of its API the export storage tests use.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    directory: string;
    silent?: boolean;
    configureBuckets?: { name: string }[];
  }

  interface KoaContext {
    method: string;
    path: string;
    query: Record<string, string | string[] | undefined>;
    status: number;
    type: string;
    body: unknown;
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Koa's middleware list, composed when the server starts listening. */
    middleware: ((ctx: KoaContext, next: () => Promise<void>) => Promise<void>)[];
    store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
