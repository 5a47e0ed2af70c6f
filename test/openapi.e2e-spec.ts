import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, TestApp } from './support/test-app';

describe('OpenAPI document (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => t.close());

  it('matches the committed openapi.json (run `npm run openapi` after changing the interface)', async () => {
    const served = (await t.http().get('/v1/openapi.json').expect(200)).body;
    const committed = JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8'));
    expect(served).toEqual(committed);
  });

  it('documents every operation of the spec with its bearer scheme and problem responses', async () => {
    const doc = (await t.http().get('/v1/openapi.json').expect(200)).body;
    const operations = [
      ['post', '/v1/tools', '201'],
      ['get', '/v1/tools/specs', '200'],
      ['post', '/v1/channels/whatsapp', '201'],
      ['put', '/v1/channels/whatsapp/{id}', '200'],
      ['post', '/v1/channels/messanger', '201'],
      ['put', '/v1/channels/messanger/{id}', '200'],
      ['post', '/v1/scheduler/follow-up/whatsapp', '201'],
      ['get', '/v1/scheduler/preview', '200'],
    ];
    for (const [method, path, success] of operations) {
      const operation = doc.paths[path]?.[method];
      expect({ path, method, documented: Boolean(operation) }).toEqual({
        path,
        method,
        documented: true,
      });
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(operation.responses)).toEqual(
        expect.arrayContaining([success, '400', '401', '429', '500', '503']),
      );
      expect(operation.responses['401'].content).toHaveProperty(['application/problem+json']);
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('serves the Swagger UI at /docs', async () => {
    const res = await t.http().get('/docs/').redirects(1);
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger');
  });
});
