import type { OpenAPIObject } from '@nestjs/swagger';
import { toOpenApi31 } from './openapi-31';

const documentWith = (schemas: Record<string, unknown>) =>
  ({
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {},
    components: { schemas },
  }) as unknown as OpenAPIObject;

describe('toOpenApi31', () => {
  it('turns nullable types into type arrays, and nullable references into anyOf with null', () => {
    const document = toOpenApi31(
      documentWith({
        A: {
          type: 'object',
          properties: {
            text: { type: 'string', nullable: true, example: 'Hola' },
            scope: { type: 'string', enum: ['all', 'marketing'], nullable: true },
            error: { nullable: true, type: 'object', allOf: [{ $ref: '#/components/schemas/B' }] },
            count: { type: 'integer', nullable: false },
            either: { oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
          },
        },
      }),
    );
    expect(document.openapi).toBe('3.1.0');
    expect(document.components?.schemas?.A).toEqual({
      type: 'object',
      properties: {
        text: { type: ['string', 'null'], example: 'Hola' },
        scope: { type: ['string', 'null'], enum: ['all', 'marketing', null] },
        error: { anyOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }] },
        count: { type: 'integer' },
        either: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
      },
    });
  });

  it('keeps a nullable allOf of several members "all of", with null beside it', () => {
    const members = [{ $ref: '#/components/schemas/B' }, { type: 'object', required: ['id'] }];
    const document = toOpenApi31(
      documentWith({ A: { nullable: true, type: 'object', allOf: members } }),
    );
    expect(document.components?.schemas?.A).toEqual({
      anyOf: [{ allOf: members }, { type: 'null' }],
    });
  });

  it('leaves examples alone, even one with a "nullable" field', () => {
    const example = { nullable: true, type: 'string' };
    const document = toOpenApi31(documentWith({ A: { type: 'object', example } }));
    expect(document.components?.schemas?.A).toEqual({ type: 'object', example });
  });
});
