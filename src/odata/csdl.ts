/**
 * GET /v1/odata/$metadata: the entity data model as OData 4.0 CSDL XML, made from entity-sets.ts.
 * Capabilities annotations tell clients what the interface does not do (read-only, no $expand,
 * no $search, computed properties neither filterable nor sortable).
 */
import {
  ENTITY_SETS,
  ENUMS,
  NAMESPACE,
  allProperties,
  isEnum,
  type EntitySetDef,
  type NavigationDef,
  type PropertyDef,
} from './entity-sets.ts';
import { SUPPORTED } from './errors.ts';

export const CONTAINER = 'Container';

const VOCABULARIES = [
  ['https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml', 'Org.OData.Core.V1', 'Core'],
  [
    'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.xml',
    'Org.OData.Capabilities.V1',
    'Capabilities',
  ],
] as const;

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const attributes = (attrs: Record<string, string | number | undefined>) =>
  Object.entries(attrs)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${escapeXml(String(value))}"`)
    .join('');

const description = (text: string | undefined, indent: string) =>
  text ? `${indent}<Annotation Term="Core.Description" String="${escapeXml(text)}"/>\n` : '';

function property(p: PropertyDef, indent: string): string {
  const attrs = attributes({
    Name: p.name,
    Type: isEnum(p.type) ? `${NAMESPACE}.${p.type.name}` : p.type,
    Nullable: p.nullable ? undefined : 'false',
    Precision: p.decimal?.precision,
    Scale: p.decimal?.scale,
  });
  return p.description
    ? `${indent}<Property${attrs}>\n${description(p.description, `${indent}  `)}${indent}</Property>\n`
    : `${indent}<Property${attrs}/>\n`;
}

function navigation(n: NavigationDef, indent: string): string {
  const target = ENTITY_SETS.find((s) => s.name === n.target)!;
  const type = `${NAMESPACE}.${target.entityType}`;
  const attrs = attributes({
    Name: n.name,
    Type: n.collection ? `Collection(${type})` : type,
    Nullable: n.collection || n.nullable ? undefined : 'false',
    Partner: n.partner,
  });
  if (!n.constraint) return `${indent}<NavigationProperty${attrs}/>\n`;
  const constraint = attributes({ Property: n.constraint.property, ReferencedProperty: n.constraint.referencedProperty });
  return `${indent}<NavigationProperty${attrs}>\n${indent}  <ReferentialConstraint${constraint}/>\n${indent}</NavigationProperty>\n`;
}

function entityType(set: EntitySetDef): string {
  const i = '      ';
  return (
    `${i}<EntityType${attributes({ Name: set.entityType })}>\n` +
    `${i}  <Key><PropertyRef${attributes({ Name: set.key })}/></Key>\n` +
    allProperties(set)
      .map((p) => property(p, `${i}  `))
      .join('') +
    set.navigation.map((n) => navigation(n, `${i}  `)).join('') +
    `${i}</EntityType>\n`
  );
}

const record = (term: string, values: Record<string, string>, indent: string) =>
  `${indent}<Annotation Term="${term}">\n${indent}  <Record>\n` +
  Object.entries(values)
    .map(([name, value]) => `${indent}    <PropertyValue Property="${name}" ${value}/>\n`)
    .join('') +
  `${indent}  </Record>\n${indent}</Annotation>\n`;

function pathRecord(term: string, collectionProperty: string, paths: readonly string[], indent: string): string {
  const items = paths.map((p) => `${indent}        <PropertyPath>${escapeXml(p)}</PropertyPath>\n`).join('');
  return (
    `${indent}<Annotation Term="${term}">\n${indent}  <Record>\n` +
    `${indent}    <PropertyValue Property="${collectionProperty}">\n${indent}      <Collection>\n${items}${indent}      </Collection>\n${indent}    </PropertyValue>\n` +
    `${indent}  </Record>\n${indent}</Annotation>\n`
  );
}

function entitySet(set: EntitySetDef): string {
  const i = '        ';
  const bindings = set.navigation
    .map((n) => `${i}  <NavigationPropertyBinding${attributes({ Path: n.name, Target: n.target })}/>\n`)
    .join('');
  const computed = set.computed?.properties.map((p) => p.name) ?? [];
  return (
    `${i}<EntitySet${attributes({ Name: set.name, EntityType: `${NAMESPACE}.${set.entityType}` })}>\n` +
    bindings +
    description(set.description, `${i}  `) +
    record('Capabilities.InsertRestrictions', { Insertable: 'Bool="false"' }, `${i}  `) +
    record('Capabilities.UpdateRestrictions', { Updatable: 'Bool="false"' }, `${i}  `) +
    record('Capabilities.DeleteRestrictions', { Deletable: 'Bool="false"' }, `${i}  `) +
    record('Capabilities.ExpandRestrictions', { Expandable: 'Bool="false"' }, `${i}  `) +
    record('Capabilities.SearchRestrictions', { Searchable: 'Bool="false"' }, `${i}  `) +
    (computed.length
      ? pathRecord('Capabilities.FilterRestrictions', 'NonFilterableProperties', computed, `${i}  `) +
        pathRecord('Capabilities.SortRestrictions', 'NonSortableProperties', computed, `${i}  `)
      : '') +
    `${i}</EntitySet>\n`
  );
}

function buildMetadata(): string {
  const references = VOCABULARIES.map(
    ([uri, namespace, alias]) =>
      `  <edmx:Reference Uri="${uri}">\n    <edmx:Include Namespace="${namespace}" Alias="${alias}"/>\n  </edmx:Reference>\n`,
  ).join('');
  const enums = ENUMS.map(
    (e) =>
      `      <EnumType Name="${e.name}">\n${e.members.map((m, value) => `        <Member${attributes({ Name: m, Value: value })}/>\n`).join('')}      </EnumType>\n`,
  ).join('');
  const functions = SUPPORTED.functions.map((f) => `            <String>${f}</String>\n`).join('');
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    '<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">\n' +
    references +
    '  <edmx:DataServices>\n' +
    `    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="${NAMESPACE}">\n` +
    enums +
    ENTITY_SETS.map(entityType).join('') +
    `      <EntityContainer Name="${CONTAINER}">\n` +
    ENTITY_SETS.map(entitySet).join('') +
    '        <Annotation Term="Capabilities.FilterFunctions">\n          <Collection>\n' +
    functions +
    '          </Collection>\n        </Annotation>\n' +
    '        <Annotation Term="Capabilities.BatchSupported" Bool="false"/>\n' +
    '      </EntityContainer>\n' +
    '    </Schema>\n' +
    '  </edmx:DataServices>\n' +
    '</edmx:Edmx>\n'
  );
}

/** The document never changes while the service runs. */
export const METADATA_XML = buildMetadata();
