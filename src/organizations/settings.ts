import { builder } from '../graphql/builder.ts';
import { keyCaller } from '../auth/access.ts';
import type { KeyCaller } from '../auth/caller.ts';
import { auditEntry } from '../audit/audit-log.ts';
import type { PrismaClient } from '../db/database.ts';
import type { HardwareAccounting as HardwareAccountingValue } from '../generated/prisma/enums.ts';

// The organisation's own settings (docs/inventory-market-based.md, "Hardware accounting"): on Organization in
// GraphQL, and GET/PATCH /v1/org/settings through SOFA.

export const SETTINGS_AUDIT_EVENT = 'organization.settings.updated';

export const HardwareAccounting = builder.enumType('HardwareAccounting', {
  description:
    'How the organisation books the hardware it acquires in its GHG inventory: GHG Protocol Scope 3 category 2 (capital goods) or category 1 (purchased goods, where hardware is expensed).',
  values: {
    capital_goods: { description: 'Scope 3 category 2, capital goods (the default)' },
    purchased_goods: { description: 'Scope 3 category 1, purchased goods and services' },
  } as const,
});

interface Settings {
  hardware_accounting: HardwareAccountingValue;
  updated_at: Date;
}

const OrganizationSettingsRef = builder.objectRef<Settings>('OrganizationSettings').implement({
  description: "Your organisation's settings.",
  fields: (t) => ({
    hardware_accounting: t.field({
      type: HardwareAccounting,
      description:
        'Scope 3 category of acquired hardware in the period inventory: capital_goods (category 2) or purchased_goods (category 1)',
      resolve: (settings) => settings.hardware_accounting,
    }),
    updated_at: t.field({
      type: 'DateTime',
      description: 'Last change of the organisation record',
      resolve: (settings) => settings.updated_at,
    }),
  }),
});

const SETTINGS = { hardware_accounting: true, updated_at: true } as const;
const TAGS = ['Organisation settings'];

builder.prismaObjectField('Organization', 'hardware_accounting', (t) =>
  t.expose('hardware_accounting', {
    type: HardwareAccounting,
    description: 'Scope 3 category of acquired hardware in the period inventory (set with updateOrganizationSettings)',
  }),
);

/** Sets the settings given (absent or null keeps one); audit-logged with what changed, in the same transaction. */
async function updateSettings(prisma: PrismaClient, caller: KeyCaller, changes: { hardware_accounting?: HardwareAccountingValue | null }) {
  return prisma.$transaction(async (tx) => {
    const before = await tx.organization.findFirstOrThrow({ select: SETTINGS });
    if (changes.hardware_accounting == null || changes.hardware_accounting === before.hardware_accounting) return before;
    await tx.organization.updateMany({ data: { hardware_accounting: changes.hardware_accounting } });
    await tx.auditLog.create({
      data: auditEntry(
        caller,
        SETTINGS_AUDIT_EVENT,
        { type: 'organization', id: caller.orgId },
        { hardware_accounting: { from: before.hardware_accounting, to: changes.hardware_accounting } },
      ),
    });
    return tx.organization.findFirstOrThrow({ select: SETTINGS });
  });
}

builder.queryField('organizationSettings', (t) =>
  t.field({
    type: OrganizationSettingsRef,
    description: "Your organisation's settings.",
    authScopes: { organisation: true },
    extensions: { rest: { method: 'GET', path: '/org/settings', summary: "Get the organisation's settings", tags: TAGS } },
    // ctx.prisma is scoped to the caller's organisation: the one row it reaches.
    resolve: (_root, _args, { prisma }) => prisma.organization.findFirstOrThrow({ select: SETTINGS }),
  }),
);

builder.mutationField('updateOrganizationSettings', (t) =>
  t.field({
    type: OrganizationSettingsRef,
    description:
      "Changes your organisation's settings: the fields given replace their values. Audit event organization.settings.updated (when a value changes).",
    authScopes: { organisation: true, writes: true },
    extensions: { rest: { method: 'PATCH', path: '/org/settings', summary: "Change the organisation's settings", tags: TAGS } },
    args: {
      hardware_accounting: t.arg({
        type: HardwareAccounting,
        description: 'capital_goods (Scope 3 category 2, the default) or purchased_goods (category 1)',
      }),
    },
    resolve: (_root, args, ctx) => updateSettings(ctx.prisma, keyCaller(ctx.caller), args),
  }),
);
