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
    requirements: toRequirementsResponse(def, requirementState),
    toolkit: { ...def.toolkit },
  };
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
