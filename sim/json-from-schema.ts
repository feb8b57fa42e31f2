/**
 * Builds a value that satisfies the common parts of a JSON schema: required properties only, strings
 * "x", numbers and integers 1, booleans true, enums and consts their (first) value, arrays with one item.
 * Used for `response_format: json_schema` and for tool-call arguments.
 */
export function toJsonFromSchema(schema: unknown, depth = 0): unknown {
  if (!isRecord(schema) || depth > 8) return {};
  if ('const' in schema) return schema['const'];
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && enumValues.length > 0) return enumValues[0] as unknown;
  const variants = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(variants) && variants.length > 0) return toJsonFromSchema(variants[0], depth + 1);
  return fromType(schema, depth);
}

function fromType(schema: Record<string, unknown>, depth: number): unknown {
  const declared = schema['type'];
  const type = Array.isArray(declared) ? (declared[0] as unknown) : declared;
  switch (type) {
    case 'string':
      return 'x';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return [toJsonFromSchema(schema['items'], depth + 1)];
    default:
      return fromObject(schema, depth);
  }
}

function fromObject(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  for (const key of required) {
    if (typeof key === 'string') result[key] = toJsonFromSchema(properties[key], depth + 1);
  }
  return result;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
