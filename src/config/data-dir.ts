import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The installation's directory (this file is two levels below it, in src/ and in dist/ alike): the default
 * DATA_DIR is anchored there, not in the current directory, so a server and the `lcf` command run from
 * anywhere in the installation find the same data (the admin token).
 */
const INSTALLATION = fileURLToPath(new URL('../../', import.meta.url));

/** DATA_DIR as given (a relative path from the current directory), or the installation's `.data`. */
export const dataDirOf = (env: NodeJS.ProcessEnv): string => (env.DATA_DIR ? path.resolve(env.DATA_DIR) : path.join(INSTALLATION, '.data'));
