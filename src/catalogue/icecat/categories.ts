/**
 * Icecat category names -> the service's category ids.
 *
 * Icecat's taxonomy has thousands of categories; the rules below cover the (English) names of the
 * device categories the service models and refuse everything that is an accessory, a consumable or
 * a component ("Notebook cases", "Toner cartridges", "Internal solid state drives"), which would
 * otherwise match on a device word. Rules are tried in order; the first that matches wins.
 */

export const SERVICE_CATEGORY_IDS = [
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
] as const;

export type ServiceCategoryId = (typeof SERVICE_CATEGORY_IDS)[number];

/** Lower case, "&" -> "and", punctuation -> space, single spaces. "All-in-One PCs/Workstations" -> "all in one pcs workstations". */
export function normalizeCategoryName(name: string): string {
  return name
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Accessories, consumables, parts and services: never a device. */
const NOT_A_DEVICE =
  /\b(accessor(y|ies)|cases?|covers?|bags?|sleeves?|skins?|backpacks?|cartridges?|toners?|inks?|drums?|fusers?|print heads?|lamps?|mounts?|mounting|stands?|arms?|holders?|cables?|adapters?|power supply units?|psus?|batter(y|ies)|chargers?|protectors?|pads?|racks?|cabinets?|trays?|spare parts?|parts|replacement|kits?|brackets?|filters?|straps?|bands|styl(us|i)|pens?|components?|modules?|fans?|coolers?|heatsinks?|enclosures?|housings?|projection screens?|graphic tablets?|internal|warranty|warranties|support|services?|licen[cs]es?|software|subscriptions?|labels|paper|media)\b/;

/** [pattern, id]: order matters (specific before general). */
const RULES: ReadonlyArray<readonly [RegExp, ServiceCategoryId]> = [
  // Point of sale before "all in one" ("All-in-One POS") and before printers ("POS printers" stay printers).
  [/\b(pos|receipt) printers?\b/, 'printer'],
  [/\b(pos|point of sale|epos|payment terminals?|cash registers?)\b/, 'pos_terminal'],
  [/\bbar ?code\b/, 'barcode_scanner'],
  // Printing and scanning.
  [/\b(multifunction(al)?s?|mfps?|all in one printers?)\b/, 'multifunction_printer'],
  [/\blabel (printers?|makers?)\b/, 'label_printer'],
  [/\bscanners?\b/, 'scanner'],
  [/\b(printers?|plotters?)\b/, 'printer'],
  // Computers.
  [/\ball in one\b/, 'all_in_one'],
  [/\bmobile workstations?\b/, 'mobile_workstation'],
  [/\bchromebooks?\b/, 'chromebook'],
  [/\brugged\b.*\b(notebooks?|laptops?)\b|\b(notebooks?|laptops?)\b.*\brugged\b/, 'rugged_laptop'],
  [/\b(convertibles?|2 in 1s?|detachables?)\b/, 'convertible'],
  [/\b(docking stations?|docks?|port replicators?)\b/, 'docking_station'],
  [/\b(thin|zero) clients?\b/, 'thin_client'],
  [/\b(mini pcs?|nettops?|barebones?)\b/, 'mini_pc'],
  [/\bblade servers?\b|\bserver blades?\b/, 'blade_server'],
  [/\btower servers?\b/, 'tower_server'],
  [/\b(nas|network attached storage)\b/, 'nas'],
  [/\b(disk arrays?|storage arrays?|san|storage area network|storage servers?)\b/, 'storage_array'],
  [/\bservers?\b/, 'server'],
  // Displays (before desktops: "PC Flat Panels" are monitors).
  [/\binteractive (whiteboards?|displays?|flat panels?)\b|\bwhiteboards?\b/, 'interactive_display'],
  [/\b(signage|public displays?)\b/, 'digital_signage'],
  [/\b(tvs?|televisions?)\b/, 'television'],
  [/\bprojectors?\b/, 'projector'],
  [/\b(monitors?|flat panels?|computer displays?)\b/, 'monitor'],
  [/\bpcs?\b.*\bworkstations?\b/, 'desktop'], // Icecat's "PCs/Workstations"
  [/\bworkstations?\b/, 'workstation'],
  [/\b(notebooks?|laptops?|ultrabooks?|netbooks?)\b/, 'laptop'],
  [/\b(tablets?|tablet pcs?)\b/, 'tablet'],
  [/\b(desktops?|pcs?|personal computers?)\b/, 'desktop'],
  // Mobile and personal devices.
  [/\b(e ?book readers?|e ?readers?)\b/, 'e_reader'],
  [/\b(smart ?watch(es)?|sport watch(es)?)\b/, 'smartwatch'],
  [/\bsmartphones?\b/, 'smartphone'],
  [/\b(feature|basic|senior) phones?\b/, 'feature_phone'],
  [/\b(ip|voip|sip|desk) phones?\b|\bip telephones?\b/, 'ip_phone'],
  [/\b(mobile|cell(ular)?) phones?\b/, 'smartphone'],
  [/\b(video conferenc\w*|conference cameras?|conference systems?|speakerphones?)\b/, 'video_conferencing'],
  [/\bwebcams?\b|\bweb cameras?\b/, 'webcam'],
  [/\b(headsets?|headphones?|earphones?|earbuds?)\b/, 'headset'],
  [/\bkeyboards?\b/, 'keyboard'],
  [/\b(mice|mouse)\b/, 'mouse'],
  [/\b(game|gaming|games|video game) consoles?\b/, 'game_console'],
  // Network.
  [/\bfirewalls?\b/, 'firewall'],
  [/\bkvm\b/, 'kvm_switch'],
  [/\b(network|ethernet|lan|managed|unmanaged|poe) switch(es)?\b|^switch(es)?$/, 'network_switch'],
  [/\b(access points?|wlan aps?|wireless aps?)\b/, 'access_point'],
  [/\brouters?\b/, 'router'],
  [/\b(modems?|residential gateways?)\b/, 'modem'],
  // Storage and power.
  [/\b(external|portable) (hard (disk )?drives?|hdds?)\b/, 'external_hdd'],
  [/\b(external|portable) (solid state drives?|ssds?)\b/, 'external_ssd'],
  [/\b(uninterruptible power suppl(y|ies)|upss?)\b/, 'ups'],
];

/**
 * Maps an Icecat category name (e.g. "Notebooks", "Computer monitors", "PCs/Workstations") to a
 * service category id, or null when the category is not a device the service models.
 */
export function mapIcecatCategory(name: string): string | null {
  if (typeof name !== 'string') return null;
  const n = normalizeCategoryName(name);
  if (!n) return null;
  // Exclusions first: "UPS batteries", "Notebook cases" and "Tablet screen protectors" are not devices.
  // ("Uninterruptible power supplies" is not caught: the exclusion names power supply *units*.)
  if (NOT_A_DEVICE.test(n)) return null;
  for (const [pattern, id] of RULES) {
    if (pattern.test(n)) return id;
  }
  return null;
}

/** Values of the features that tell a device's sub-type ("Product type", "Form factor", OS). */
export interface CategoryHints {
  productType?: string;
  formFactor?: string;
  operatingSystem?: string;
  title?: string;
}

/**
 * Narrows a base category with the product's own features: a notebook whose product type is
 * "Convertible (Folder)" is a convertible, one running Chrome OS a chromebook; a server whose form
 * factor is "Tower" a tower server, and so on. Returns the base category when nothing narrows it.
 */
export function refineCategory(base: string | null, hints: CategoryHints): string | null {
  if (base === null) return null;
  const kind = normalizeCategoryName(`${hints.productType ?? ''} ${hints.formFactor ?? ''}`);
  const title = normalizeCategoryName(hints.title ?? '');
  const os = normalizeCategoryName(hints.operatingSystem ?? '');
  if (base === 'laptop') {
    if (/\bmobile workstation\b/.test(kind) || /\bmobile workstation\b/.test(title)) return 'mobile_workstation';
    if (/\brugged\b/.test(kind) || /\brugged\b/.test(title)) return 'rugged_laptop';
    if (/\bchrome ?os\b/.test(os) || /\bchromebook\b/.test(title)) return 'chromebook';
    if (/\b(convertible|hybrid 2 in 1|2 in 1|detachable)\b/.test(kind)) return 'convertible';
    return base;
  }
  if (base === 'desktop') {
    if (/\ball in one\b/.test(kind)) return 'all_in_one';
    if (/\bthin client\b/.test(kind)) return 'thin_client';
    if (/\b(mini pc|nettop|usff|ultra small form factor|micro)\b/.test(kind)) return 'mini_pc';
    if (/\bworkstation\b/.test(kind)) return 'workstation';
    return base;
  }
  if (base === 'server') {
    if (/\btower\b/.test(kind)) return 'tower_server';
    if (/\bblade\b/.test(kind)) return 'blade_server';
    return base;
  }
  return base;
}
