import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The agent events as the committed openapi.json documents them (its `webhooks`; openapi.e2e-spec
 * proves the served document is the committed one). Every body a FakeAgentEndpoint receives is
 * checked against its type's schema, so a field the code adds, drops or retypes without the
 * document fails the suites that see the event.
 */
interface Webhooks {
  webhooks: Record<
    string,
    {
      post: {
        requestBody: { content: { 'application/json': { schema: object; example: unknown } } };
      };
    }
  >;
  components: { schemas: Record<string, object> };
}

type Node = Record<string, unknown>;

/**
 * Stricter than the document: an object schema that lists its properties admits no other (the
 * document leaves additionalProperties open, as readers should; a sender must not add fields).
 */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (typeof node !== 'object' || node === null) return node;
  const copy: Node = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, key === 'example' ? value : closed(value)]),
  );
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

let validators: Map<string, ValidateFunction> | undefined;

/** The documented event types, each with the validator of its body. */
export function agentEventValidators(
  document: Webhooks = JSON.parse(
    readFileSync(join(__dirname, '..', '..', 'openapi.json'), 'utf8'),
  ) as Webhooks,
): Map<string, ValidateFunction> {
  if (validators) return validators;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    formats: {
      uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
      uri: (value: string) => URL.canParse(value),
      // Only on integers here (milliseconds), which formats do not apply to.
      'date-time': true,
    },
  });
  ajv.addSchema({ $id: 'openapi.json', components: closed(document.components) });
  validators = new Map(
    Object.entries(document.webhooks).map(([type, item]) => [
      type,
      ajv.compile({
        $ref: `openapi.json${(item.post.requestBody.content['application/json'].schema as { $ref: string }).$ref}`,
      }),
    ]),
  );
  return validators;
}

/** What is wrong with an event body against its documented schema; empty when it matches. */
export function agentEventProblems(body: unknown): string[] {
  const type = (body as { type?: unknown }).type;
  const validate = agentEventValidators().get(String(type));
  if (!validate) return [`"${String(type)}" is not an event type of openapi.json's webhooks`];
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (error) => `${type}${error.instancePath}: ${error.message} ${JSON.stringify(error.params)}`,
  );
}
