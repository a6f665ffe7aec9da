import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A secret the server keeps in its data directory when configuration gives none (the admin token,
 * the export URL secret of filesystem storage, whose archives are in that directory too): read from
 * `dataDir/fileName`, or created there by `generate` on first start with 0600 rights. Instances
 * sharing the directory end up with the same secret.
 */
export async function dataDirSecret(dataDir: string, fileName: string, generate: () => string): Promise<string> {
  const file = path.join(dataDir, fileName);
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing?.trim()) return existing.trim();
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${generate()}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    // Another instance sharing the data directory won the race: use its secret.
    if (error.code !== 'EEXIST') throw error;
  });
  return (await readFile(file, 'utf8')).trim();
}
