/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query AssetDetail($id: ID!) {\n  asset(id: $id) {\n    id\n    brand\n    mpn\n    serial_number\n    status\n    purchase_date\n    country\n    total_kg_co2e\n    production_kg\n    use_phase_kg\n    product {\n      id\n      brand\n      mpn\n      name\n      category\n    }\n    active_calculation {\n      id\n      created_at\n      total_kg_co2e\n      emission_factor(type: GRID) {\n        value\n        unit\n        source\n        source_version\n      }\n    }\n  }\n}": typeof types.AssetDetailDocument,
    "query FactorLookup($regionCode: String!, $atDate: DateTime) {\n  factorByRegion(type: GRID, regionCode: $regionCode, atDate: $atDate) {\n    value\n    unit\n    source\n    source_version\n    source_url\n    source_license\n    valid_from\n    valid_to\n    registry {\n      display_name\n      current_version\n      next_check_after\n    }\n  }\n}": typeof types.FactorLookupDocument,
    "query MethodologyAudit($assetId: ID!) {\n  asset(id: $assetId) {\n    id\n    brand\n    mpn\n    serial_number\n    country\n    total_kg_co2e\n    active_calculation {\n      id\n      created_at\n      total_kg_co2e\n      methodology_card {\n        standard\n        engine_version\n        confidence\n        uncertainty_pct\n        data_sources\n      }\n      boundary\n      assumptions\n      emission_factor(type: GRID) {\n        value\n        unit\n        source\n        source_version\n        source_url\n        source_license\n        valid_from\n        valid_to\n        registry {\n          display_name\n          current_version\n          next_check_after\n        }\n      }\n    }\n  }\n}": typeof types.MethodologyAuditDocument,
    "query OrganizationOverview($first: Int = 100, $after: String, $status: [AssetStatus!], $category: String, $country: String, $purchaseDateFrom: Date, $purchaseDateTo: Date) {\n  organization {\n    id\n    name\n    plan\n    asset_count\n    total_kg_co2e\n  }\n  assets(\n    first: $first\n    after: $after\n    status: $status\n    category: $category\n    country: $country\n    purchase_date_from: $purchaseDateFrom\n    purchase_date_to: $purchaseDateTo\n  ) {\n    edges {\n      cursor\n      node {\n        id\n        brand\n        mpn\n        serial_number\n        status\n        purchase_date\n        country\n        total_kg_co2e\n        production_kg\n        use_phase_kg\n        product {\n          id\n          name\n          category\n        }\n        active_calculation {\n          id\n          created_at\n          total_kg_co2e\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": typeof types.OrganizationOverviewDocument,
    "mutation RefurbishmentSimulation($assetIds: [ID!]!) {\n  simulateRefurbish(assetIds: $assetIds) {\n    current_quarterly_co2e\n    scenario_quarterly_co2e\n    delta_kg_co2e\n    delta_percentage\n    affected_assets_count\n  }\n}": typeof types.RefurbishmentSimulationDocument,
};
const documents: Documents = {
    "query AssetDetail($id: ID!) {\n  asset(id: $id) {\n    id\n    brand\n    mpn\n    serial_number\n    status\n    purchase_date\n    country\n    total_kg_co2e\n    production_kg\n    use_phase_kg\n    product {\n      id\n      brand\n      mpn\n      name\n      category\n    }\n    active_calculation {\n      id\n      created_at\n      total_kg_co2e\n      emission_factor(type: GRID) {\n        value\n        unit\n        source\n        source_version\n      }\n    }\n  }\n}": types.AssetDetailDocument,
    "query FactorLookup($regionCode: String!, $atDate: DateTime) {\n  factorByRegion(type: GRID, regionCode: $regionCode, atDate: $atDate) {\n    value\n    unit\n    source\n    source_version\n    source_url\n    source_license\n    valid_from\n    valid_to\n    registry {\n      display_name\n      current_version\n      next_check_after\n    }\n  }\n}": types.FactorLookupDocument,
    "query MethodologyAudit($assetId: ID!) {\n  asset(id: $assetId) {\n    id\n    brand\n    mpn\n    serial_number\n    country\n    total_kg_co2e\n    active_calculation {\n      id\n      created_at\n      total_kg_co2e\n      methodology_card {\n        standard\n        engine_version\n        confidence\n        uncertainty_pct\n        data_sources\n      }\n      boundary\n      assumptions\n      emission_factor(type: GRID) {\n        value\n        unit\n        source\n        source_version\n        source_url\n        source_license\n        valid_from\n        valid_to\n        registry {\n          display_name\n          current_version\n          next_check_after\n        }\n      }\n    }\n  }\n}": types.MethodologyAuditDocument,
    "query OrganizationOverview($first: Int = 100, $after: String, $status: [AssetStatus!], $category: String, $country: String, $purchaseDateFrom: Date, $purchaseDateTo: Date) {\n  organization {\n    id\n    name\n    plan\n    asset_count\n    total_kg_co2e\n  }\n  assets(\n    first: $first\n    after: $after\n    status: $status\n    category: $category\n    country: $country\n    purchase_date_from: $purchaseDateFrom\n    purchase_date_to: $purchaseDateTo\n  ) {\n    edges {\n      cursor\n      node {\n        id\n        brand\n        mpn\n        serial_number\n        status\n        purchase_date\n        country\n        total_kg_co2e\n        production_kg\n        use_phase_kg\n        product {\n          id\n          name\n          category\n        }\n        active_calculation {\n          id\n          created_at\n          total_kg_co2e\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": types.OrganizationOverviewDocument,
    "mutation RefurbishmentSimulation($assetIds: [ID!]!) {\n  simulateRefurbish(assetIds: $assetIds) {\n    current_quarterly_co2e\n    scenario_quarterly_co2e\n    delta_kg_co2e\n    delta_percentage\n    affected_assets_count\n  }\n}": types.RefurbishmentSimulationDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query AssetDetail($id: ID!) {\n  asset(id: $id) {\n    id\n    brand\n    mpn\n    serial_number\n    status\n    purchase_date\n    country\n    total_kg_co2e\n    production_kg\n    use_phase_kg\n    product {\n      id\n      brand\n      mpn\n      name\n      category\n    }\n    active_calculation {\n      id\n      created_at\n      total_kg_co2e\n      emission_factor(type: GRID) {\n        value\n        unit\n        source\n        source_version\n      }\n    }\n  }\n}"): (typeof documents)["query AssetDetail($id: ID!) {\n  asset(id: $id) {\n    id\n    brand\n    mpn\n    serial_number\n    status\n    purchase_date\n    country\n    total_kg_co2e\n    production_kg\n    use_phase_kg\n    product {\n      id\n      brand\n      mpn\n      name\n      category\n    }\n    active_calculation {\n      id\n      created_at\n      total_kg_co2e\n      emission_factor(type: GRID) {\n        value\n        unit\n        source\n        source_version\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query FactorLookup($regionCode: String!, $atDate: DateTime) {\n  factorByRegion(type: GRID, regionCode: $regionCode, atDate: $atDate) {\n    value\n    unit\n    source\n    source_version\n    source_url\n    source_license\n    valid_from\n    valid_to\n    registry {\n      display_name\n      current_version\n      next_check_after\n    }\n  }\n}"): (typeof documents)["query FactorLookup($regionCode: String!, $atDate: DateTime) {\n  factorByRegion(type: GRID, regionCode: $regionCode, atDate: $atDate) {\n    value\n    unit\n    source\n    source_version\n    source_url\n    source_license\n    valid_from\n    valid_to\n    registry {\n      display_name\n      current_version\n      next_check_after\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query MethodologyAudit($assetId: ID!) {\n  asset(id: $assetId) {\n    id\n    brand\n    mpn\n    serial_number\n    country\n    total_kg_co2e\n    active_calculation {\n      id\n      created_at\n      total_kg_co2e\n      methodology_card {\n        standard\n        engine_version\n        confidence\n        uncertainty_pct\n        data_sources\n      }\n      boundary\n      assumptions\n      emission_factor(type: GRID) {\n        value\n        unit\n        source\n        source_version\n        source_url\n        source_license\n        valid_from\n        valid_to\n        registry {\n          display_name\n          current_version\n          next_check_after\n        }\n      }\n    }\n  }\n}"): (typeof documents)["query MethodologyAudit($assetId: ID!) {\n  asset(id: $assetId) {\n    id\n    brand\n    mpn\n    serial_number\n    country\n    total_kg_co2e\n    active_calculation {\n      id\n      created_at\n      total_kg_co2e\n      methodology_card {\n        standard\n        engine_version\n        confidence\n        uncertainty_pct\n        data_sources\n      }\n      boundary\n      assumptions\n      emission_factor(type: GRID) {\n        value\n        unit\n        source\n        source_version\n        source_url\n        source_license\n        valid_from\n        valid_to\n        registry {\n          display_name\n          current_version\n          next_check_after\n        }\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query OrganizationOverview($first: Int = 100, $after: String, $status: [AssetStatus!], $category: String, $country: String, $purchaseDateFrom: Date, $purchaseDateTo: Date) {\n  organization {\n    id\n    name\n    plan\n    asset_count\n    total_kg_co2e\n  }\n  assets(\n    first: $first\n    after: $after\n    status: $status\n    category: $category\n    country: $country\n    purchase_date_from: $purchaseDateFrom\n    purchase_date_to: $purchaseDateTo\n  ) {\n    edges {\n      cursor\n      node {\n        id\n        brand\n        mpn\n        serial_number\n        status\n        purchase_date\n        country\n        total_kg_co2e\n        production_kg\n        use_phase_kg\n        product {\n          id\n          name\n          category\n        }\n        active_calculation {\n          id\n          created_at\n          total_kg_co2e\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"): (typeof documents)["query OrganizationOverview($first: Int = 100, $after: String, $status: [AssetStatus!], $category: String, $country: String, $purchaseDateFrom: Date, $purchaseDateTo: Date) {\n  organization {\n    id\n    name\n    plan\n    asset_count\n    total_kg_co2e\n  }\n  assets(\n    first: $first\n    after: $after\n    status: $status\n    category: $category\n    country: $country\n    purchase_date_from: $purchaseDateFrom\n    purchase_date_to: $purchaseDateTo\n  ) {\n    edges {\n      cursor\n      node {\n        id\n        brand\n        mpn\n        serial_number\n        status\n        purchase_date\n        country\n        total_kg_co2e\n        production_kg\n        use_phase_kg\n        product {\n          id\n          name\n          category\n        }\n        active_calculation {\n          id\n          created_at\n          total_kg_co2e\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation RefurbishmentSimulation($assetIds: [ID!]!) {\n  simulateRefurbish(assetIds: $assetIds) {\n    current_quarterly_co2e\n    scenario_quarterly_co2e\n    delta_kg_co2e\n    delta_percentage\n    affected_assets_count\n  }\n}"): (typeof documents)["mutation RefurbishmentSimulation($assetIds: [ID!]!) {\n  simulateRefurbish(assetIds: $assetIds) {\n    current_quarterly_co2e\n    scenario_quarterly_co2e\n    delta_kg_co2e\n    delta_percentage\n    affected_assets_count\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;