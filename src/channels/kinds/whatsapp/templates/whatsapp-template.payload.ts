import type { OutboundMessage } from '../../../channel-transport';
import type { TemplateButton, TemplateButtonSubType, TemplateHeader } from './template-message.dto';

type TemplateMessage = Extract<OutboundMessage, { type: 'template' }>;

/**
 * The `template` object of the Cloud API's send-message body, as Meta documents it ("Send message
 * templates", developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates, and
 * the messages reference's template, component and parameter objects):
 * `{ name, language: { code }, components: [header, body, button...] }`, a component only when it
 * has parameters (Meta refuses an empty one).
 */
export function whatsappTemplatePayload(message: TemplateMessage): object {
  const body = [
    ...message.bodyParameters.map((text) => ({ type: 'text', text })),
    // By name: their order means nothing to Meta, and jsonb does not keep the order given.
    ...Object.entries(message.namedParameters ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, text]) => ({
        type: 'text',
        parameter_name: name,
        text,
      })),
  ];
  const components = [
    ...(message.header ? [{ type: 'header', parameters: [headerParameter(message.header)] }] : []),
    ...(body.length > 0 ? [{ type: 'body', parameters: body }] : []),
    ...[...(message.buttons ?? [])]
      .sort((a, b) => a.index - b.index)
      .map((button) => ({
        type: 'button',
        sub_type: button.sub_type,
        // Meta's examples give the index as a string ("0"); the reference says so too.
        index: String(button.index),
        parameters: [buttonParameter(button)],
      })),
  ];
  return {
    name: message.name,
    language: { code: message.languageCode },
    ...(components.length > 0 && { components }),
  };
}

/** A header's one parameter: its text (named for a NAMED template), media, or location. */
function headerParameter(header: TemplateHeader): object {
  switch (header.type) {
    case 'text':
      return {
        type: 'text',
        ...(header.parameter_name !== undefined && { parameter_name: header.parameter_name }),
        text: header.text ?? '',
      };
    case 'image':
    case 'video':
    case 'document':
      return {
        type: header.type,
        [header.type]:
          header.media_id !== undefined ? { id: header.media_id } : { link: header.link },
      };
    case 'location':
      return { type: 'location', location: { ...header.location } };
  }
}

/** What each button sub_type takes as its parameter, in Meta's names. */
const BUTTON_PARAMETERS: Record<TemplateButtonSubType, (value: string) => object> = {
  // A dynamic URL button: the suffix appended to the template's URL.
  url: (text) => ({ type: 'text', text }),
  quick_reply: (payload) => ({ type: 'payload', payload }),
  copy_code: (coupon_code) => ({ type: 'coupon_code', coupon_code }),
  flow: (flow_token) => ({ type: 'action', action: { flow_token } }),
};

function buttonParameter(button: TemplateButton): object {
  return BUTTON_PARAMETERS[button.sub_type](button.parameter);
}
