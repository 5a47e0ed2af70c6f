import type {
  InboundPreference,
  InboundTemplateUpdate,
  ItemRefusal,
  TemplateUpdateField,
} from '../../webhooks/inbound-notification';
import { TEMPLATE_UPDATE_FIELDS } from '../../webhooks/inbound-notification';
import {
  isRefusal,
  PHONE,
  readAccount,
  readInstant,
  refuse,
  text,
  unacceptable,
} from '../meta/meta-notification.reader';
import { TEMPLATE_STATUSES } from './templates/whatsapp-template.entity';

/*
 * What a WhatsApp Business Account's notifications say beyond messages and statuses (issue 20):
 * a person's marketing preference (`user_preferences`), and a template whose status, quality or
 * category changed (`message_template_status_update`, `message_template_quality_update`,
 * `template_category_update`; Meta's webhook reference for each field).
 */

export const isTemplateUpdateField = (field: string): field is TemplateUpdateField =>
  (TEMPLATE_UPDATE_FIELDS as readonly string[]).includes(field);

const STATUSES: ReadonlySet<string> = new Set(TEMPLATE_STATUSES);
/** Events of `message_template_status_update` that are not a status, but say which one it is now. */
const STATUS_OF_EVENT: Record<string, string> = { REINSTATED: 'APPROVED' };
const CATEGORIES: ReadonlySet<string> = new Set(['MARKETING', 'UTILITY', 'AUTHENTICATION']);
const MAX_NAME_LENGTH = 512;

/**
 * One of `value.user_preferences[]`: `{ wa_id, detail, category: "marketing_messages",
 * value: "stop" | "resume", timestamp }`. Other categories are Meta's to add: set aside, not applied.
 */
export function readUserPreference(
  preference: unknown,
  account: string | undefined,
): InboundPreference | ItemRefusal {
  const bad = unacceptable(preference);
  if (bad) return bad;
  if (typeof preference !== 'object' || preference === null) {
    return refuse('invalid_field', 'is not an object');
  }
  const { wa_id: waId, category, value, timestamp } = preference as Record<string, unknown>;
  if (typeof waId !== 'string' || !PHONE.test(waId)) {
    return refuse('invalid_field', 'needs wa_id, a phone number');
  }
  if (category !== 'marketing_messages') {
    return refuse(
      'unsupported_field',
      `agentline applies only the marketing_messages preference, not "${String(category).slice(0, 64)}"`,
    );
  }
  if (value !== 'stop' && value !== 'resume') {
    return refuse('invalid_field', 'needs value "stop" or "resume"');
  }
  const at = readInstant(timestamp, 'timestamp', 'seconds');
  if (isRefusal(at)) return at;
  return {
    kind: 'preference',
    account,
    recipient: waId.startsWith('+') ? waId : `+${waId}`,
    value,
    at,
  };
}

/**
 * A template notification's `value`, for the account `entry.id`. The status is applied at once
 * when `event` is one (`REINSTATED` means APPROVED again); a completed category change
 * (`previous_category` and `new_category`) likewise; either way the catalog is synced again.
 */
export function readTemplateUpdate(
  field: TemplateUpdateField,
  value: Record<string, unknown>,
  entryId: unknown,
): InboundTemplateUpdate | ItemRefusal {
  const bad = unacceptable(value);
  if (bad) return bad;
  const businessAccountId = readAccount(entryId, 'entry.id');
  if (isRefusal(businessAccountId)) return businessAccountId;
  if (businessAccountId === undefined) return refuse('invalid_field', 'needs entry.id');
  const name = text(value.message_template_name);
  const language = text(value.message_template_language);
  if (name === null || name.length > MAX_NAME_LENGTH) {
    return refuse('invalid_field', 'needs message_template_name');
  }
  if (language === null || language.length > 64) {
    return refuse('invalid_field', 'needs message_template_language');
  }
  const update: InboundTemplateUpdate = {
    kind: 'template',
    businessAccountId,
    field,
    name,
    language,
  };
  if (field === 'message_template_status_update' && typeof value.event === 'string') {
    const status = STATUS_OF_EVENT[value.event] ?? value.event;
    if (STATUSES.has(status)) update.status = status;
  }
  if (
    field === 'template_category_update' &&
    typeof value.previous_category === 'string' &&
    typeof value.new_category === 'string' &&
    CATEGORIES.has(value.new_category)
  ) {
    update.category = value.new_category;
  }
  return update;
}
