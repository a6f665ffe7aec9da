import type { TestApp } from '../support/test-app.ts';

let models = 0;

/** A stored calculation of the key's organisation (a footprint answered with a calculation_id). */
export async function storedCalculation(t: TestApp, key: string): Promise<string> {
  const query = new URLSearchParams({
    brand: 'Dell',
    model: `Latitude 54${String(models++).padStart(2, '0')}`,
    country: 'DE',
    ram_gb: '16',
  });
  const res = await t.json(`/v1/footprint?${query}`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200 || !res.body.calculation_id) throw new Error(`footprint: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.calculation_id;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

export function issue(t: TestApp, key: string, calculationId: unknown) {
  return t.json('/v1/certificate', { method: 'POST', headers: bearer(key), body: JSON.stringify({ calculation_id: calculationId }) });
}

export function revoke(t: TestApp, key: string, id: unknown) {
  return t.json('/v1/certificate/revoke', { method: 'POST', headers: bearer(key), body: JSON.stringify({ id }) });
}

/** A stored fact changed behind the service's back: the total of a footprint certificate's signed payload. */
export async function alterStoredTotal(t: TestApp, certificateId: string): Promise<void> {
  await t.app.services.db.prisma.$executeRawUnsafe(
    `UPDATE certificates SET payload = jsonb_set(payload, '{statement,total_kg_co2e}', to_jsonb((payload#>>'{statement,total_kg_co2e}')::float8 / 2)) WHERE id = $1::uuid`,
    certificateId,
  );
}

/** One byte of the stored signature flipped. */
export async function flipSignatureByte(t: TestApp, certificateId: string): Promise<void> {
  const prisma = t.app.services.db.prisma;
  const { signature } = await prisma.certificate.findUniqueOrThrow({ where: { id: certificateId } });
  const bytes = Buffer.from(signature, 'base64url');
  bytes[10]! ^= 0x01;
  await prisma.certificate.update({ where: { id: certificateId }, data: { signature: bytes.toString('base64url') } });
}
