import { describe, expect, it } from 'vitest';
import { CATEGORIES, getCategory, SCREEN_TYPES, STORAGE_TYPES } from './index.ts';

const IDS = [
  'laptop',
  'desktop',
  'all_in_one',
  'workstation',
  'thin_client',
  'monitor',
  'tablet',
  'smartphone',
  'server',
  'printer',
  'network_switch',
  'router',
  'access_point',
  'nas',
  'external_hdd',
  'projector',
  'docking_station',
  'ip_phone',
  'game_console',
  'chromebook',
  'convertible',
  'rugged_laptop',
  'mini_pc',
  'mobile_workstation',
  'tower_server',
  'blade_server',
  'storage_array',
  'firewall',
  'ups',
  'kvm_switch',
  'multifunction_printer',
  'label_printer',
  'scanner',
  'webcam',
  'headset',
  'keyboard',
  'mouse',
  'video_conferencing',
  'interactive_display',
  'digital_signage',
  'television',
  'smartwatch',
  'feature_phone',
  'e_reader',
  'external_ssd',
  'modem',
  'pos_terminal',
  'barcode_scanner',
];

describe('categories', () => {
  it('has exactly the 48 ids', () => {
    expect(CATEGORIES.map((c) => c.id).sort()).toEqual([...IDS].sort());
  });

  it('every category is complete and sourced', () => {
    for (const c of CATEGORIES) {
      expect(c.name.length, c.id).toBeGreaterThan(0);
      expect(c.lifetime_years, c.id).toBeGreaterThan(0);
      expect(c.fallback_kwh_per_year, c.id).toBeGreaterThan(0);
      const d = c.defaults;
      expect(d.weight_kg, c.id).toBeGreaterThan(0);
      expect(d.weight_kg, c.id).toBeLessThan(c.parameters.limits.max_weight_kg);
      expect(d.screen_size_inch, c.id).toBeLessThanOrEqual(c.parameters.limits.max_screen_inch);
      expect(SCREEN_TYPES).toContain(d.screen_type);
      expect(STORAGE_TYPES).toContain(d.storage_type);
      for (const k of ['processor_tdp_w', 'ram_gb', 'storage_gb', 'battery_wh'] as const)
        expect(d[k], `${c.id}.${k}`).toBeGreaterThanOrEqual(0);
      const p = c.parameters;
      expect(p.fit_group.length).toBeGreaterThan(0);
      expect(p.transport.air_share).toBeGreaterThanOrEqual(0);
      expect(p.transport.air_share).toBeLessThanOrEqual(1);
      expect(p.use_phase.tdp_share + p.use_phase.screen_share).toBeLessThanOrEqual(1);
      for (const k of ['lifetime_years', 'fallback_kwh_per_year', 'defaults', 'production', 'transport', 'end_of_life']) {
        expect(c.sources[k], `${c.id} sources.${k}`).toBeTruthy();
      }
    }
  });

  it('getCategory is case- and space-tolerant and returns undefined for unknown ids', () => {
    expect(getCategory(' Laptop ')?.id).toBe('laptop');
    expect(getCategory('toaster')).toBeUndefined();
  });
});
