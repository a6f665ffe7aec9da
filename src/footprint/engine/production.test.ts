import { describe, expect, it } from 'vitest';
import { getCategory } from './categories.ts';
import { BOAVIZTA, DISPLAY_KG_PER_M2, DRAM_DENSITY_GB_PER_CM2 } from './constants.ts';
import {
  assemblyKg,
  batteryKg,
  blockSums,
  chassisKg,
  displayComponentKg,
  displayKg,
  housingMassKg,
  mainboardKg,
  memoryKg,
  memoryModulesKg,
  PRODUCTION_COMPONENTS,
  processorKg,
  rawProductionComponents,
  scaleComponents,
  storageKg,
  sumComponents,
  withElasticity,
} from './production.ts';
import { resolveSpecs, screenAreaM2 } from './specs.ts';

const laptop = getCategory('laptop')!;
const server = getCategory('server')!;
const monitor = getCategory('monitor')!;

describe('production components (literature priors)', () => {
  it('processor follows the Boavizta die model, per socket', () => {
    // 15 W, one socket: die 0.5 + 0.01 x 15 = 0.65 cm2
    expect(processorKg(15, 1)).toBeCloseTo(BOAVIZTA.cpu_base_kg + BOAVIZTA.cpu_per_die_cm2_kg * 0.65, 6);
    // 300 W over two sockets: 2 x (9.14 + 1.97 x 2.0)
    expect(processorKg(300, 2)).toBeCloseTo(2 * (9.14 + 1.97 * 2.0), 6);
    expect(processorKg(0, 1)).toBe(0);
    expect(processorKg(100_000, 1)).toBeCloseTo(9.14 + 1.97 * 8, 6); // die area capped
  });

  it('memory: 5.22 kg per module + 2.20 kg per cm2 of die at the DRAM density', () => {
    expect(memoryModulesKg(2, 8)).toBeCloseTo(2 * (5.22 + 2.2 * (8 / DRAM_DENSITY_GB_PER_CM2)), 6);
    expect(memoryKg(16, 16)).toBeCloseTo(memoryModulesKg(1, 16), 6);
    expect(memoryKg(64, 16)).toBeCloseTo(memoryModulesKg(4, 16), 6);
    expect(memoryKg(0, 16)).toBe(0);
  });

  it('storage per GB by type: flash by die area, HDD per drive', () => {
    const ssd = storageKg(512, 'ssd', 2000);
    expect(ssd).toBeCloseTo(6.34 + 2.2 * (512 / 48.5), 6);
    expect(storageKg(512, 'nvme', 2000)).toBeCloseTo(ssd, 6);
    expect(storageKg(512, 'emmc', 2000)).toBeLessThan(ssd);
    expect(storageKg(1000, 'hdd', 2000)).toBeCloseTo(31.1, 6);
    expect(storageKg(5000, 'hdd', 2000)).toBeCloseTo(3 * 31.1, 6);
    expect(storageKg(0, 'ssd', 2000)).toBe(0);
    expect(storageKg(1024, 'ssd', 2000)).toBeGreaterThan(ssd);
  });

  it('display by area and technology', () => {
    const area = screenAreaM2(24, 16 / 9);
    expect(area).toBeCloseTo(0.1588, 3); // 24-inch 16:9 panel: 53.1 cm x 29.9 cm
    expect(displayKg(24, 'lcd', monitor)).toBeCloseTo(screenAreaM2(24, monitor.defaults.screen_aspect_ratio) * DISPLAY_KG_PER_M2.lcd, 6);
    expect(displayKg(24, 'oled', monitor)).toBeGreaterThan(displayKg(24, 'lcd', monitor));
    expect(displayKg(24, 'mini_led', monitor)).toBeGreaterThan(displayKg(24, 'oled', monitor));
    expect(displayKg(24, 'tn', monitor)).toBeLessThan(displayKg(24, 'ips', monitor));
    expect(displayKg(27, 'ips', monitor)).toBeGreaterThan(displayKg(24, 'ips', monitor));
    expect(screenAreaM2(0, 16 / 9)).toBe(0);
  });

  it('battery per Wh', () => {
    expect(batteryKg(50, laptop)).toBeCloseTo(50 * 0.12, 6);
    expect(batteryKg(0, laptop)).toBe(0);
    expect(batteryKg(216, getCategory('ups')!)).toBeCloseTo(216 * 0.05, 6);
  });

  it('housing mass subtracts display, battery and internal power supply, bounded below', () => {
    const s = resolveSpecs(laptop, { weight_kg: 1.5, screen_size_inch: 14, battery_wh: 54 });
    const expected = 1.5 - screenAreaM2(14, laptop.defaults.screen_aspect_ratio) * 6 - 54 / 180;
    expect(housingMassKg(laptop, s)).toBeCloseTo(expected, 6);
    const tiny = resolveSpecs(laptop, { weight_kg: 0.3, screen_size_inch: 17, battery_wh: 99 });
    expect(housingMassKg(laptop, tiny)).toBeCloseTo(0.3 * 0.2, 6);
  });

  it('chassis: per kg of housing, or the enclosure prior for servers', () => {
    const s = resolveSpecs(laptop, { weight_kg: 1.5 });
    expect(chassisKg(laptop, s)).toBeCloseTo(housingMassKg(laptop, s) * laptop.parameters.production.chassis_kg_co2e_per_kg, 6);
    expect(chassisKg(server, resolveSpecs(server, {}))).toBeCloseTo(150, 6);
    expect(chassisKg(server, resolveSpecs(server, { weight_kg: 80 }))).toBeCloseTo(150 * 2, 6); // sqrt(4), bounded
  });

  it('mainboard scales sub-linearly with TDP, bounded', () => {
    expect(mainboardKg(laptop, 15)).toBeCloseTo(45, 6);
    expect(mainboardKg(laptop, 60)).toBeCloseTo(45 * 4 ** 0.35, 6);
    expect(mainboardKg(laptop, 6000)).toBeCloseTo(45 * 4 ** 0.35, 6);
    expect(mainboardKg(monitor, 0)).toBe(monitor.parameters.production.mainboard_kg_co2e);
  });

  it('assembly scales with mass up to the Boavizta server value', () => {
    expect(assemblyKg(1)).toBeCloseTo(1.1, 6);
    expect(assemblyKg(100)).toBe(6.68);
  });

  it('elasticity anchors at the reference value', () => {
    expect(withElasticity(200, 100, 1)).toBe(200);
    expect(withElasticity(200, 100, 0)).toBe(100);
    expect(withElasticity(200, 100, 0.5)).toBeCloseTo(100 * Math.sqrt(2), 6);
    expect(withElasticity(200, 0, 0.5)).toBe(200);
    const shape = { mass_elasticity: 1, display_area_elasticity: 0, reference_weight_kg: null, reference_screen_inch: 24 };
    expect(displayComponentKg(monitor, 32, 'ips', shape)).toBeCloseTo(displayKg(24, 'ips', monitor), 6);
  });

  it('raw components cover every component, blocks and scaling are consistent', () => {
    const raw = rawProductionComponents(laptop, resolveSpecs(laptop, {}));
    expect(Object.keys(raw).sort()).toEqual([...PRODUCTION_COMPONENTS].sort());
    for (const v of Object.values(raw)) expect(v).toBeGreaterThanOrEqual(0);
    const blocks = blockSums(raw);
    expect(blocks.structure + blocks.electronics + blocks.memory_storage + blocks.display).toBeCloseTo(sumComponents(raw), 6);
    const scaled = scaleComponents(raw, { structure: 2, electronics: 1, memory_storage: 1, display: 0.5 });
    expect(scaled.chassis).toBeCloseTo(2 * raw.chassis, 6);
    expect(scaled.display).toBeCloseTo(0.5 * raw.display, 6);
    expect(scaled.memory).toBeCloseTo(raw.memory, 6);
  });
});
