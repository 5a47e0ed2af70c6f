import type { Type } from '@nestjs/common';
import { TransformationType } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationArguments } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type Condition = (object: object, value: unknown) => boolean;
type Check = (value: unknown, args: ValidationArguments) => unknown;

interface FieldPlan {
  property: string;
  /** class-transformer copies a value given for it as it is (no @Type, no @Transform). */
  asIs: boolean;
  /** ValidateIf / IsOptionalNotNull: when any is false, the field's checks are skipped. */
  conditions: Condition[];
  checks: { validate: Check; constraints: unknown[] }[];
}

/** A DTO's rules as class-validator would run them, for bodies of primitive values only. */
interface Plan {
  fields: FieldPlan[];
  byProperty: ReadonlyMap<string, FieldPlan>;
}

const plans = new WeakMap<Type<unknown>, Plan | null>();

const isPrimitive = (value: unknown): boolean =>
  value === null || (typeof value !== 'object' && typeof value !== 'function');

const isThenable = (value: unknown): boolean =>
  value !== null &&
  typeof value === 'object' &&
  typeof (value as Promise<unknown>).then === 'function';

/**
 * The plan of a DTO, or null when one of its rules is not a plain synchronous check (nested
 * objects, `each`, groups, async constraints, promises) or class-transformer would do more than
 * copy its fields (@Expose, @Exclude, accessors): those always take the full path, as does a
 * body that gives a field class-transformer converts (@Type, @Transform).
 */
function planOf(dto: Type<unknown>): Plan | null {
  const cached = plans.get(dto);
  if (cached !== undefined) return cached;
  const plan = buildPlan(dto);
  plans.set(dto, plan);
  return plan;
}

function buildPlan(dto: Type<unknown>): Plan | null {
  const storage = getMetadataStorage();
  // What class-validator's executor reads for `validate(instance, options)` without groups.
  const metadatas: ValidationMetadata[] = storage.getTargetValidationMetadatas(
    dto,
    undefined as unknown as string,
    false,
    false,
    undefined,
  );
  if (metadatas.length === 0) return null;
  const transformer = defaultMetadataStorage;
  if (
    transformer.getExposedMetadatas(dto).length > 0 ||
    transformer.getExcludedMetadatas(dto).length > 0 ||
    transformer.getStrategy(dto) !== 'none'
  ) {
    return null;
  }
  const byProperty = new Map<string, FieldPlan>();
  for (const metadata of metadatas) {
    const property = metadata.propertyName;
    if ((metadata.groups?.length ?? 0) > 0 || metadata.each || metadata.always !== undefined) {
      return null;
    }
    let field = byProperty.get(property);
    if (!field) {
      if (accessorOf(dto, property)) return null;
      // Such a field may be left out (class-transformer only converts the keys given).
      const asIs =
        !transformer.findTypeMetadata(dto, property) &&
        transformer.findTransformMetadatas(dto, property, TransformationType.PLAIN_TO_CLASS)
          .length === 0;
      field = { property, asIs, conditions: [], checks: [] };
      byProperty.set(property, field);
    }
    switch (metadata.type) {
      case ValidationTypes.CONDITIONAL_VALIDATION:
        field.conditions.push(metadata.constraints[0] as Condition);
        break;
      case ValidationTypes.CUSTOM_VALIDATION:
      case ValidationTypes.IS_DEFINED: {
        if ((metadata as { validateIf?: unknown }).validateIf) return null;
        for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
          if (constraint.async) return null;
          const instance = constraint.instance as { validate: Check };
          field.checks.push({
            validate: instance.validate.bind(instance),
            constraints: metadata.constraints,
          });
        }
        break;
      }
      case ValidationTypes.WHITELIST:
        break;
      default:
        return null;
    }
  }
  return { fields: [...byProperty.values()], byProperty };
}

/** A getter or setter the class (or a parent) defines for the property: class-transformer skips those. */
function accessorOf(dto: Type<unknown>, property: string): boolean {
  for (let at: object | null = dto.prototype as object; at; at = Object.getPrototypeOf(at)) {
    if (Object.getOwnPropertyDescriptor(at, property)) return true;
  }
  return false;
}

/**
 * The instance the global ValidationPipe (`transform: true`, whitelist) would return for `body`,
 * when every field holds a primitive and passes every rule of the DTO; undefined otherwise, and
 * the caller then runs the pipe itself, which builds the errors. So an answer is never judged
 * here, only a success confirmed: class-validator's rules are the same functions, called with
 * the same arguments, without its executor (grouping, error objects, a promise per call) or
 * class-transformer's walk, which were most of the cost of validating a small body.
 */
export function validatedQuickly(
  dto: Type<unknown>,
  body: Record<string, unknown>,
): object | undefined {
  const plan = planOf(dto);
  if (!plan) return undefined;
  for (const key in body) {
    if (!plan.byProperty.get(key)?.asIs || !isPrimitive(body[key])) return undefined;
  }
  // class-transformer's plainToInstance of a plain object of primitives: a new instance, the
  // body's keys copied in their order.
  const instance = new dto() as Record<string, unknown>;
  for (const key of Object.keys(body)) instance[key] = body[key];
  const targetName = dto.name;
  for (const { property, conditions, checks } of plan.fields) {
    const value = instance[property];
    if (!conditions.every((condition) => condition(instance, value))) continue;
    for (const { validate, constraints } of checks) {
      const valid = validate(value, { targetName, property, object: instance, value, constraints });
      if (!valid || isThenable(valid)) return undefined;
    }
  }
  return instance;
}
