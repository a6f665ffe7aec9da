import SchemaBuilder, {
  BasePlugin,
  type PothosInputFieldConfig,
  type PothosInputFieldType,
  type PothosOutputFieldConfig,
  type SchemaTypes,
} from '@pothos/core';
import * as z from 'zod';
import { DEFAULT_MAX_LENGTH, type TextLimit } from './text.ts';
import { text } from './schemas.ts';

const VALIDATION = '@pothos/plugin-validation';

/** The declared limit of a String/ID input (maxChars), else the default. */
export function textLimitOf(input: { extensions?: Record<string, unknown> | null | undefined }): TextLimit {
  return (input.extensions?.textLimit as TextLimit | undefined) ?? { maxLength: DEFAULT_MAX_LENGTH };
}

/**
 * Gives every String and ID argument and input field the text rules: a `text()` schema for
 * @pothos/plugin-validation (so GraphQL and the REST routes SOFA derives from the schema check
 * it before the resolver runs, naming the field: `products[3].country`), and its limit in the
 * description (so SDL, GraphiQL and OpenAPI show it). Listed after ValidationPlugin in the
 * builder's plugins: Pothos runs field hooks last plugin first, so this schema is in place when
 * the validation plugin collects them, and runs before any schema the field declares itself.
 */
export class TextInputsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onInputFieldConfig(fieldConfig: PothosInputFieldConfig<Types>): PothosInputFieldConfig<Types> {
    return this.withTextRules(fieldConfig);
  }

  // Arguments reach the validation plugin with their field, before their own input-field hook.
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const args = Object.fromEntries(Object.entries(fieldConfig.args).map(([name, arg]) => [name, this.withTextRules(arg)]));
    return { ...fieldConfig, args };
  }

  private withTextRules(input: PothosInputFieldConfig<Types>): PothosInputFieldConfig<Types> {
    const schema = this.textSchema(input.type, textLimitOf(input));
    if (!schema) return input;
    const { maxLength } = textLimitOf(input);
    const note = `At most ${maxLength} characters.`;
    const description = input.description?.includes(note)
      ? input.description
      : input.description
        ? `${input.description.replace(/\.?$/, '.')} ${note}`
        : note;
    const extensions = input.extensions ?? {};
    const validation = extensions[VALIDATION] ?? {};
    if (validation.schemas?.some((s) => TEXT_SCHEMAS.has(s))) return { ...input, description };
    return {
      ...input,
      description,
      extensions: { ...extensions, [VALIDATION]: { ...validation, schemas: [...(validation.schemas ?? []), schema] } },
    };
  }

  /** text() for a String/ID, an array of them for a list (items may be null); none for other types. */
  private textSchema(type: PothosInputFieldType<Types>, limit: TextLimit): z.ZodType | undefined {
    if (type.kind === 'List') {
      const item = this.textSchema(type.type, limit);
      return item && remember(z.array(item.nullable()));
    }
    if (type.kind !== 'Scalar') return undefined;
    const name = this.buildCache.getTypeConfig(type.ref).name;
    if (name !== 'String' && name !== 'ID') return undefined;
    const { maxLength, ...options } = limit;
    return remember(text(maxLength, options));
  }
}

// The schemas this plugin added, so that a config seen twice (an argument's hooks) gets one.
const TEXT_SCHEMAS = new WeakSet<object>();
const remember = (schema: z.ZodType) => {
  TEXT_SCHEMAS.add(schema);
  return schema;
};

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      textInputs: TextInputsPlugin<Types>;
    }
  }
}

const pluginName = 'textInputs';
// Tests share modules between files (vitest isolate: false) and reload a module graph when one mocks a module;
// Pothos keeps its plugin registry in node_modules, which is not reloaded, and refuses a second implementation.
const registered = (SchemaBuilder as unknown as { plugins: Record<string, unknown> }).plugins;
if (!registered[pluginName]) SchemaBuilder.registerPlugin(pluginName, TextInputsPlugin);
export default pluginName;
