import { describe, expect, it } from 'vitest';
import { CatalogueService } from '../../src/catalogue/service.ts';
import type { PrismaClient } from '../../src/db/database.ts';
import { createLogger } from '../../src/observability/logger.ts';

// The service reads only its product ids from the database at creation.
const prisma = { $queryRaw: async () => [{ products: [] }] } as unknown as PrismaClient;

describe('the built-in catalogue index, built by the first that needs it', () => {
  it('is built once, in turns of the event loop, for requests that come before the warm-up', async () => {
    const service = await CatalogueService.create(prisma, createLogger('silent'));
    // Turns other requests would get while the index is built: counted between the start and the end of the build.
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    const [first, second] = await Promise.all([service.searchIndex(), service.searchIndex()]);
    counting = false;
    expect(second).toBe(first);
    expect(await service.searchIndex()).toBe(first);
    // About 2 600 devices, 400 per turn, plus the catalogue's load: more than a handful of turns, not one stretch.
    expect(turns).toBeGreaterThanOrEqual(6);
    expect(first.searchPage('latitude 5440', 5).hits[0]?.entry.name).toBe('Dell Latitude 5440');
  });

  it('serves the warm-up and a footprint lookup from the same index', async () => {
    const service = await CatalogueService.create(prisma, createLogger('silent'));
    const [match] = await Promise.all([service.find('Dell', null, 'Latitude 5440'), service.warm()]);
    expect(match?.entry.name).toBe('Dell Latitude 5440');
    expect(service.index).toBe(await service.searchIndex());
  });
});
