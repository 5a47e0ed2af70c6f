import { formatToolSchema } from './formatted-schema';
import {
  AuthorizationRequirementResponse,
  RequirementState,
  RequirementsResponse,
  SecretRequirementResponse,
  ToolSchemaFormat,
  ToolSpecificationDefinition,
  ToolSpecificationResponse,
  ValueSchemaDefinition,
  ValueSchemaResponse,
  VALUE_BOUNDS,
} from './tool-specification.types';

/**
 * Builds one GET /v1/tools/specs item. Without a requirement state (no agent context) every
 * requirement reads as unmet, so only tools that need nothing report `met: true`.
 */
export function toSpecificationResponse(
  def: ToolSpecificationDefinition,
  requirementState: RequirementState = {},
  format: ToolSchemaFormat = 'openai',
): ToolSpecificationResponse {
  return {
    ...specificationHead(def, format),
    requirements: toRequirementsResponse(def, requirementState),
    toolkit: { ...def.toolkit },
  };
}

/** An item's keys before `requirements`, in the order answered. */
function specificationHead(
  def: ToolSpecificationDefinition,
  format: ToolSchemaFormat,
): Omit<ToolSpecificationResponse, 'requirements' | 'toolkit'> {
  return {
    name: def.name,
    qualified_name: def.qualifiedName,
    fully_qualified_name: def.fullyQualifiedName,
    description: def.description,
    formatted_schema: formatToolSchema(def, format),
    input: {
      parameters: def.parameters.map((p) => ({
        name: p.name,
        description: p.description,
        required: p.required,
        inferrable: p.inferrable,
        value_schema: toValueSchemaResponse(p.value_schema),
      })),
    },
    output: {
      description: def.output.description,
      available_modes: [...def.output.available_modes],
      value_schema: toValueSchemaResponse(def.output.value_schema),
    },
  };
}

/** An item's JSON around its requirements, UTF-8: `head + requirements + tail`. */
interface FixedJson {
  head: Buffer;
  tail: Buffer;
}

/**
 * Per spec and format, the JSON of all but the requirements. Keyed by the spec object: the
 * catalog replaces a spec when it changes, never edits it, so a replaced spec's entry goes with it.
 */
const fixedJson = new WeakMap<ToolSpecificationDefinition, Map<ToolSchemaFormat, FixedJson>>();

/**
 * `JSON.stringify(toSpecificationResponse(def, requirementState, format))` as UTF-8, byte for
 * byte, in three pieces of which only the requirements (the one part that depends on an agent)
 * are made per call: formatting the schemas, serializing and encoding them again on every call
 * was most of an agent's catalog read.
 */
export function serializeSpecification(
  def: ToolSpecificationDefinition,
  requirementState: RequirementState = {},
  format: ToolSchemaFormat = 'openai',
): Buffer[] {
  let byFormat = fixedJson.get(def);
  if (!byFormat) fixedJson.set(def, (byFormat = new Map()));
  let fixed = byFormat.get(format);
  if (!fixed) {
    const head = JSON.stringify(specificationHead(def, format));
    fixed = {
      // `{...}` opened again, so that requirements and toolkit follow as JSON.stringify puts them.
      head: Buffer.from(`${head.slice(0, -1)},"requirements":`),
      tail: Buffer.from(`,"toolkit":${JSON.stringify({ ...def.toolkit })}}`),
    };
    byFormat.set(format, fixed);
  }
  const requirements = JSON.stringify(toRequirementsResponse(def, requirementState));
  return [fixed.head, Buffer.from(requirements), fixed.tail];
}

/** Copies only the keys that apply, so clients never see `inner_val_type: null`. */
function toValueSchemaResponse(schema: ValueSchemaDefinition): ValueSchemaResponse {
  const response: ValueSchemaResponse = {
    val_type: schema.val_type,
    ...(schema.inner_val_type !== undefined && { inner_val_type: schema.inner_val_type }),
    ...(schema.enum !== undefined && { enum: [...schema.enum] }),
  };
  for (const key of VALUE_BOUNDS) {
    if (schema[key] !== undefined) Object.assign(response, { [key]: schema[key] });
  }
  return response;
}

function toRequirementsResponse(
  def: ToolSpecificationDefinition,
  state: RequirementState,
): RequirementsResponse {
  const required = def.requirements.authorization;
  let authorization: AuthorizationRequirementResponse | undefined;
  if (required !== undefined) {
    const current = state.authorization;
    authorization = {
      id: current?.id ?? required.provider_id,
      provider_id: required.provider_id,
      provider_type: required.provider_type,
      status: current?.status ?? 'not_started',
      status_reason:
        current?.status_reason ??
        `Authorization with provider '${required.provider_id}' has not been started`,
      token_status: current?.token_status ?? 'not_started',
      oauth2: { scopes: [...required.scopes] },
    };
  }

  const configured = new Set<string>(state.configuredSecrets ?? []);
  const secrets: SecretRequirementResponse[] = def.requirements.secrets.map(({ key }) => {
    const met = configured.has(key);
    return { key, met, status_reason: met ? '' : `Secret '${key}' is not configured` };
  });

  const met =
    (authorization === undefined || authorization.status === 'completed') &&
    secrets.every((s) => s.met);
  return { met, ...(authorization && { authorization }), secrets };
}
