import type { OpenAPIObject } from '@nestjs/swagger';

export const OPENAPI_VERSION = '3.1.0';

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * @nestjs/swagger writes OpenAPI 3.0 schemas whatever version the document declares: `nullable`
 * beside `type`, or beside `allOf: [{ $ref }]` for a nullable nested DTO. OpenAPI 3.1 schemas are
 * JSON Schema 2020-12, which has no `nullable`: `type: [T, 'null']`, and `anyOf: [{ $ref },
 * { type: 'null' }]` for a reference (an `allOf` would demand the referenced object). Examples are
 * data, not schemas, and are left alone.
 */
export function toOpenApi31(document: OpenAPIObject): OpenAPIObject {
  document.openapi = OPENAPI_VERSION;
  convert(document);
  return document;
}

function convert(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) convert(item);
    return;
  }
  if (!isNode(node)) return;
  if (typeof node.nullable === 'boolean') nullableToType(node);
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'example' && key !== 'examples') convert(value);
  }
}

function nullableToType(schema: Node): void {
  const nullable = schema.nullable === true;
  delete schema.nullable;
  if (!nullable) return;
  const references = Array.isArray(schema.allOf)
    ? (schema.allOf as unknown[])
    : typeof schema.$ref === 'string'
      ? [{ $ref: schema.$ref }]
      : undefined;
  if (references) {
    delete schema.allOf;
    delete schema.$ref;
    delete schema.type;
    // Several members stay "all of" them: listed in anyOf, any one would do.
    schema.anyOf = [
      ...(references.length > 1 ? [{ allOf: references }] : references),
      { type: 'null' },
    ];
  } else if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const key = Array.isArray(schema.oneOf) ? 'oneOf' : 'anyOf';
    delete schema.type;
    schema[key] = [...(schema[key] as unknown[]), { type: 'null' }];
  } else if (typeof schema.type === 'string') {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum)) schema.enum = [...(schema.enum as unknown[]), null];
  }
}
