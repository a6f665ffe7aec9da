import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs a poppler tool (or zbarimg on a rendered page) over the PDF's bytes in a temporary file. */
async function withFile<T>(pdf: Buffer, use: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lcf-cert-'));
  try {
    const file = path.join(dir, 'certificate.pdf');
    await writeFile(file, pdf);
    return await use(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const pageCount = (pdf: Buffer) =>
  withFile(pdf, async (file) => Number(/Pages:\s+(\d+)/.exec((await run('pdfinfo', [file])).stdout)![1]));

/** The text of the whole document, or of one page, with runs of white space as one space (wrapped lines joined). */
export const pdfText = (pdf: Buffer, page?: number) =>
  withFile(pdf, async (file) => {
    const range = page === undefined ? [] : ['-f', String(page), '-l', String(page)];
    return (await run('pdftotext', [...range, file, '-'])).stdout.replace(/\s+/g, ' ');
  });

/** What the QR codes on a page say (zbarimg on the page rendered at 150 dpi). */
export const qrCodes = (pdf: Buffer, page: number) =>
  withFile(pdf, async (file, dir) => {
    await run('pdftoppm', ['-png', '-r', '150', '-f', String(page), '-l', String(page), '-singlefile', file, path.join(dir, 'page')]);
    const { stdout } = await run('zbarimg', ['--quiet', '--raw', path.join(dir, 'page.png')]).catch(() => ({ stdout: '' }));
    return stdout.split('\n').filter(Boolean);
  });

/** Every number printed in the text ("1,365", "81.7", "2"), in order. */
export const numbersIn = (text: string) => text.match(/\d[\d,]*(?:\.\d+)?/g) ?? [];
